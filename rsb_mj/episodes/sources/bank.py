"""A user question bank: ``(:source (:file "questions.jsonl"))``, one JSON object per line.

Schema of a line (UTF-8; blank lines and lines starting with ``#`` are skipped)::

    {"question": "What is the capital of Peru?",          # required, non-empty text
     "options": ["Lima", "Quito", "Bogota", "La Paz"],    # the answer and its distractors
     "answer": "Lima",                                    # required: one of the options
     "subject": "geography",                              # optional
     "split": "eval",                                     # optional: "train" or "eval"
     "id": "peru"}                                        # optional: a stable id

* ``options``: at least as many distinct, non-empty texts as the task's ``:choices``
  (a question with more gets the answer and ``N - 1`` of its distractors per episode, drawn
  as for MMLU-Pro). It may be left out when ``answer`` is a number (``"42"``, ``"3.5"``):
  the options are then generated around it as for GSM8K. Such a number has at most
  :data:`~rsb_mj.episodes.numeric.MAX_ANSWER_DIGITS` (15) digits before the point and
  :data:`~rsb_mj.episodes.numeric.MAX_ANSWER_DECIMALS` (6) after it (``1e30`` is refused).
* Text in ``question`` or ``options`` is shown as written: a placeholder such as ``{MAPA}``
  or ``{Q}`` there is *not* filled in (only templates are); :attr:`Bank.placeholders` lists
  each one with its line and column, and ``rsb lint`` warns about them (RSB472).
* The file is read through :func:`rsb_mj.lang.files.read_referenced`: a regular file of at
  most :data:`~rsb_mj.lang.files.MAX_REFERENCED_BYTES` (32 MiB).
* ``split``: without it, a question is ``eval`` when the first 4 bytes of
  ``sha256(question text, lower-cased and whitespace-collapsed)`` are divisible by 3 (about
  a third of the bank) and ``train`` otherwise: fixed by the text alone, so adding questions
  never moves another one.
* ids are ``file-{stem}-{id}`` (``id`` field) or ``file-{stem}-{line}``; ids and question
  texts must be unique within the file.

:func:`read_bank` returns the questions and every problem as ``(line, message)``; the
linter reports them as ``questions.jsonl:12:1: RSB453 ...`` and the runtime refuses a file
with any (:class:`BankSource`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.episodes.numeric import check_answer, decimals_of, format_number, parse_number
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import QuestionSource, check_split
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.files import ReferencedFileError, read_referenced

#: Fields a line may have.
FIELDS = ("question", "options", "answer", "subject", "split", "id")
#: One question in this many goes to eval when the line has no split.
EVAL_ONE_IN = 3
#: What looks like an instruction placeholder in a question or option text: the names the
#: sampler fills in templates ({Q}, {OPTIONS}, {MAPA}..) and other all-capital names of
#: three or more letters ({ANSWER}); ``{x}``, ``{1, 2}`` or LaTeX's ``\mathbb{R}`` are not.
PLACEHOLDER = re.compile(r"\{(Q|OPTIONS|MAP[A-Z]|[A-Z][A-Z0-9_]{2,})\}")


def hashed_split(text: str) -> str:
    """``"eval"`` or ``"train"`` for a question without a split field (see the module)."""
    key = " ".join(text.lower().split()).encode("utf-8")
    value = int.from_bytes(hashlib.sha256(key).digest()[:4], "big")
    return "eval" if value % EVAL_ONE_IN == 0 else "train"


@dataclass(frozen=True)
class Bank:
    """A read question bank.

    Attributes:
        path: the file.
        questions: every valid question, file order.
        splits: question id -> split.
        lines: question id -> its line in the file.
        problems: ``(line, message)`` of every invalid line or file-level problem (line 0
            for the file as a whole).
        placeholders: ``(line, column, "{NAME}")`` of every :data:`PLACEHOLDER` in a
            question or option text (1-based, the column in the line as written).
    """

    path: Path
    questions: tuple[Question, ...]
    splits: dict[str, str]
    lines: dict[str, int]
    problems: tuple[tuple[int, str], ...]
    placeholders: tuple[tuple[int, int, str], ...] = ()

    def pool(self, split: str) -> tuple[Question, ...]:
        """The questions of ``split``, file order."""
        return tuple(q for q in self.questions if self.splits[q.qid] == split)

    def too_few_options(self, choices: int) -> list[tuple[int, str]]:
        """``(line, message)`` of every text question with fewer than ``choices`` options."""
        return [
            (
                self.lines[q.qid],
                f"{len(q.distractors) + 1} options; the task's {choices} choices need at "
                f"least {choices}",
            )
            for q in self.questions
            if not q.serves(choices)
        ]


def _text(value: object) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) and value.strip() else None


def _parse_line(raw: str, line: int, stem: str) -> tuple[Question, str | None]:
    """One line as (question, its split field or None); raises ValueError with the problem."""
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(row, dict):
        raise ValueError("a line must be a JSON object with question, options and answer")
    unknown = sorted(set(row) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; valid fields: {', '.join(FIELDS)}")
    for name in ("question", "answer"):
        if name not in row:
            raise ValueError(f"missing field {name!r}")
    question = _text(row["question"])
    if question is None:
        raise ValueError("'question' must be a non-empty string")
    if not isinstance(row["answer"], str | int | float) or isinstance(row["answer"], bool):
        raise ValueError("'answer' must be a string (or a number)")
    answer = _text(str(row["answer"]))
    if answer is None:
        raise ValueError("'answer' must not be empty")
    split = row.get("split")
    if split is not None and split not in ("train", "eval"):
        raise ValueError(f"'split' is {split!r}; valid choices: train, eval")
    subject = row.get("subject", "")
    if not isinstance(subject, str):
        raise ValueError("'subject' must be a string")
    ident = row.get("id", line)
    if not isinstance(ident, str | int) or isinstance(ident, bool) or str(ident) == "":
        raise ValueError("'id' must be a non-empty string or a number")
    qid = f"file-{stem}-{ident}"
    if "options" not in row:
        try:
            number = parse_number(answer)
        except EpisodeError:
            raise ValueError(
                f"missing field 'options' (only a numeric answer may leave it out; "
                f"{answer!r} is not a number)"
            ) from None
        try:
            value = format_number(check_answer(number, answer), decimals_of(number))
        except EpisodeError as exc:
            raise ValueError(str(exc)) from None
        return Question(qid, question, value, numeric=True, subject=subject), split
    options = row["options"]
    if not isinstance(options, list) or not options:
        raise ValueError("'options' must be a non-empty list of strings")
    texts = []
    for i, option in enumerate(options):
        text = _text(option) if isinstance(option, str) else None
        if text is None:
            raise ValueError(f"option {i + 1} must be a non-empty string")
        if text in texts:
            raise ValueError(f"option {i + 1} ({text!r}) repeats option {texts.index(text) + 1}")
        texts.append(text)
    if len(texts) < 2:
        raise ValueError("'options' needs at least 2 options")
    if answer not in texts:
        raise ValueError(f"'answer' {answer!r} is not one of the options")
    distractors = tuple(t for t in texts if t != answer)
    return Question(qid, question, answer, distractors, subject=subject), split


def _placeholders(raw: str, line: int, question: Question) -> list[tuple[int, int, str]]:
    """The :data:`PLACEHOLDER` matches of a line that lie in its question or option texts."""
    texts = (question.text, *question.distractors, question.answer)
    return [
        (line, m.start() + 1, m.group(0))
        for m in PLACEHOLDER.finditer(raw)
        if any(m.group(0) in t for t in texts)
    ]


def read_bank(path: Path) -> Bank:
    """Read and validate a question bank (never raises on its contents; see ``problems``)."""
    problems: list[tuple[int, str]] = []
    questions: list[Question] = []
    splits: dict[str, str] = {}
    found: list[tuple[int, int, str]] = []
    try:
        text = read_referenced(path, "question bank").decode("utf-8")
    except ReferencedFileError as exc:
        message = "question bank not found" if exc.kind == "missing" else str(exc)
        return Bank(path, (), {}, {}, ((0, message),))
    except UnicodeDecodeError as exc:
        return Bank(path, (), {}, {}, ((0, f"cannot read the question bank: {exc}"),))
    texts: dict[str, int] = {}
    lines: dict[str, int] = {}
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            question, split = _parse_line(raw, line, path.stem)
        except ValueError as exc:
            problems.append((line, str(exc)))
            continue
        key = question.text.lower()
        if question.qid in splits:
            problems.append((line, f"id {question.qid!r} is used twice"))
            continue
        if key in texts:
            problems.append((line, f"the same question as line {texts[key]}"))
            continue
        texts[key] = line
        splits[question.qid] = split or hashed_split(question.text)
        lines[question.qid] = line
        questions.append(question)
        found.extend(_placeholders(raw, line, question))
    if not problems:
        for split in ("train", "eval"):
            if not any(s == split for s in splits.values()):
                problems.append(
                    (0, f'no {split} questions; add more, or give some a "split": "{split}"')
                )
    return Bank(path, tuple(questions), splits, lines, tuple(problems), tuple(found))


_BANKS: dict[tuple[str, int, int], Bank] = {}


def load_bank(path: Path) -> Bank:
    """:func:`read_bank`, cached by path, size and modification time."""
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    except OSError:
        return read_bank(path)
    if key not in _BANKS:
        _BANKS[key] = read_bank(path)
    return _BANKS[key]


class BankSource(QuestionSource):
    """The questions of a user question bank (see the module docstring)."""

    name = "file"

    def __init__(self, path: Path) -> None:
        """Read ``path``.

        Raises:
            EpisodeError: ``path:line: problem`` for the first invalid line.
        """
        self.bank = load_bank(path)
        if self.bank.problems:
            line, message = self.bank.problems[0]
            where = f"{path}:{line}" if line else str(path)
            raise EpisodeError(f"{where}: {message}")
        self._by_id = {q.qid: q for q in self.bank.questions}

    def pool(self, split: str) -> tuple[Question, ...]:
        """The bank's questions of ``split``."""
        return self.bank.pool(check_split(split))

    def get(self, qid: str) -> Question:
        """The question with id ``qid``."""
        try:
            return self._by_id[qid]
        except KeyError:
            raise EpisodeError(f"{self.bank.path}: no question with id {qid!r}") from None

    def split_of(self, qid: str) -> str:
        """The split of ``qid``."""
        self.get(qid)
        return self.bank.splits[qid]

    def check_choices(self, choices: int) -> None:
        """Raise EpisodeError when a text question has fewer than ``choices`` options."""
        super().check_choices(choices)
        short = self.bank.too_few_options(choices)
        if short:
            line, message = short[0]
            raise EpisodeError(f"{self.bank.path}:{line}: {message}")
