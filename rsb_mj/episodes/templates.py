"""Instruction templates: text files in ``tasks/templates/``, one template per line.

Files are ``{seen,unseen}_{N}.txt`` for every choice count ``N`` in 2..10; lines starting with
``#`` and blank lines are skipped, and a template's id is ``{set}-{choices}-{NN}`` with ``NN``
its 0-based position among the templates of the file (``unseen-4-03``). The files for counts
other than 4 and 10 are made from those two by ``tools/make_templates.py``.

Placeholders (:func:`rsb_mj.choices.placeholders`; each at most once, the required ones
exactly once, nothing else in braces):

* 2..8 choices: ``{Q}`` = the question followed by its options, ``"what is 27 minus 17?
  options: (A) 4 (B) 10 (C) 11 (D) 14."``; ``{MAPA}`` .. one per letter =
  ``"A is the red block"``; optionally ``{OPTIONS}``;
* 9, 10 choices: ``{Q}`` = the question; ``{OPTIONS}`` = ``"(A) 12 (B) 15 ... (K) 31"``.

Candidates that show their option's answer (answer plates, :mod:`rsb_mj.scene.display`)
are not told apart by the instruction, so their templates take only ``{Q}``
(:data:`rsb_mj.choices.ANSWER_PLACEHOLDERS`), one file per set and question form
(:attr:`rsb_mj.episodes.question.Question.form`): ``a2a-{set}-{form}.txt``, ids
``a2a-{set}-{form}-{NN}`` (:func:`load_answer_templates`; ``{Q}`` is a question, ``text``
file, or the description of the target, ``picture`` file).

A task may bring its own file: ``(:instruction (:templates (:file "my_templates.txt")))``
(:func:`load_template_file`; ids ``{file stem}-{choices}-{NN}``).

No placeholder can carry the answer: the correct option lives only in episode metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rsb_mj.choices import (
    ANSWER_CHOICES,
    ANSWER_PLACEHOLDERS,
    ANSWER_TEMPLATE_PREFIX,
    CHOICE_COUNTS,
    LETTERS,
    counts_text,
    placeholders,
    required_placeholders,
)
from rsb_mj.errors import EpisodeError
from rsb_mj.resources import tasks_dir

#: The two template sets.
TEMPLATE_SETS = ("seen", "unseen")
#: Required placeholders per choice count.
PLACEHOLDERS: dict[int, tuple[str, ...]] = {n: required_placeholders(n) for n in CHOICE_COUNTS}
#: Question form -> the name of its answer-template files (``a2a-{set}-{name}.txt``).
ANSWER_FORMS = {"target": "picture", "question": "text"}
_FIELD = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class Template:
    """One instruction template.

    Attributes:
        id: e.g. ``"unseen-4-03"``.
        text: the template with its ``{...}`` placeholders.
        path: the file it came from.
        line: its 1-based line number in that file.
    """

    id: str
    text: str
    path: str
    line: int


def templates_dir() -> Path:
    """The folder of the shipped template files (``tasks/templates``)."""
    return tasks_dir() / "templates"


def template_problems(text: str, choices: int, answers: bool = False) -> list[str]:
    """What is wrong with one template for ``choices`` options (empty list when valid);
    ``answers``: a template for candidates that show their answers (``{Q}`` only)."""
    allowed = ANSWER_PLACEHOLDERS if answers else placeholders(choices)
    required = ANSWER_PLACEHOLDERS if answers else PLACEHOLDERS[choices]
    found = _FIELD.findall(text)
    problems = [
        f"unknown placeholder {{{name}}}; valid choices: " + ", ".join(f"{{{w}}}" for w in allowed)
        for name in found
        if name not in allowed
    ]
    for name in allowed:
        count = found.count(name)
        if count > 1 or (count == 0 and name in required):
            problems.append(f"placeholder {{{name}}} appears {count} times; it must appear once")
    if text.count("{") != len(found) or text.count("}") != len(found):
        problems.append("unbalanced brace")
    return problems


def parse_templates(
    text: str, path: str, set_name: str, choices: int, answers: bool = False
) -> tuple[Template, ...]:
    """Parse a template file's text: ids ``{set_name}-{choices}-{NN}``, or, for answer
    templates (``answers``), ``{set_name}-{NN}``.

    Raises:
        EpisodeError: ``path:line:col`` and what is wrong, for the first invalid template.
    """
    if choices not in PLACEHOLDERS:
        raise EpisodeError(f"{path}: {choices} choices; valid choices: {counts_text()}")
    prefix = set_name if answers else f"{set_name}-{choices}"
    out: list[Template] = []
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        problems = template_problems(line, choices, answers)
        if problems:
            col = raw.index(line[0]) + 1
            raise EpisodeError(f"{path}:{line_no}:{col}: {problems[0]}")
        out.append(Template(f"{prefix}-{len(out):02d}", line, path, line_no))
    if not out:
        raise EpisodeError(f"{path}: no templates")
    return tuple(out)


@cache
def load_templates(set_name: str, choices: int) -> tuple[Template, ...]:
    """The templates of ``set_name`` (``seen``/``unseen``) for ``choices`` options.

    Raises:
        EpisodeError: for an unknown set or choice count, or an invalid file.
    """
    if set_name not in TEMPLATE_SETS:
        raise EpisodeError(
            f"unknown template set {set_name!r}; valid choices: {', '.join(TEMPLATE_SETS)}"
        )
    if choices not in PLACEHOLDERS:
        raise EpisodeError(f"{choices} choices; valid choices: {counts_text()}")
    path = templates_dir() / f"{set_name}_{choices}.txt"
    if not path.is_file():
        raise EpisodeError(f"template file {path} is missing; reinstall rsb_mj")
    return parse_templates(path.read_text(encoding="utf-8"), str(path), set_name, choices)


def answer_template_name(set_name: str, form: str) -> str:
    """The stem of the answer-template file of ``set_name`` and question ``form``
    (``"a2a-unseen-picture"``).

    Raises:
        EpisodeError: for an unknown set or form.
    """
    if set_name not in TEMPLATE_SETS:
        raise EpisodeError(
            f"unknown template set {set_name!r}; valid choices: {', '.join(TEMPLATE_SETS)}"
        )
    if form not in ANSWER_FORMS:
        raise EpisodeError(
            f"unknown question form {form!r}; valid choices: {', '.join(ANSWER_FORMS)}"
        )
    return f"{ANSWER_TEMPLATE_PREFIX}{set_name}-{ANSWER_FORMS[form]}"


def answer_template_files() -> list[Path]:
    """Every shipped answer-template file, by set then form."""
    return [
        templates_dir() / f"{answer_template_name(s, f)}.txt"
        for s in TEMPLATE_SETS
        for f in ANSWER_FORMS
    ]


@cache
def load_answer_templates(
    set_name: str, form: str, choices: int = ANSWER_CHOICES
) -> tuple[Template, ...]:
    """The templates of ``set_name`` for candidates that show their answers, for questions
    of ``form`` (``"target"`` or ``"question"``): ``{Q}`` only, ids
    ``a2a-{set}-{picture|text}-{NN}``.

    Raises:
        EpisodeError: for an unknown set or form, or an invalid file.
    """
    stem = answer_template_name(set_name, form)
    path = templates_dir() / f"{stem}.txt"
    if not path.is_file():
        raise EpisodeError(f"template file {path} is missing; reinstall rsb_mj")
    text = path.read_text(encoding="utf-8")
    return parse_templates(text, str(path), stem, choices, answers=True)


_FILES: dict[tuple[str, int, int, int, bool], tuple[Template, ...]] = {}


def load_template_file(path: Path, choices: int, answers: bool = False) -> tuple[Template, ...]:
    """The templates of a task's own template file (``(:templates (:file "..."))``), for
    ``choices`` options (``answers``: for candidates that show their answers, ``{Q}`` only);
    ids ``{file stem}-{choices}-{NN}``. Cached by path, size and modification time.

    Raises:
        EpisodeError: when the file is missing or a template is invalid (``path:line:col``).
    """
    try:
        stat = path.stat()
    except OSError:
        raise EpisodeError(f"template file {path} not found") from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, choices, answers)
    if key not in _FILES:
        text = path.read_text(encoding="utf-8")
        if answers:  # same ids as a mapped file: {stem}-{choices}-{NN}
            _FILES[key] = parse_templates(text, str(path), f"{path.stem}-{choices}", choices, True)
        else:
            _FILES[key] = parse_templates(text, str(path), path.stem, choices)
    return _FILES[key]


def template_by_id(template_id: str) -> Template:
    """The template with id ``template_id`` (e.g. ``"unseen-4-03"``).

    Raises:
        EpisodeError: for an unknown id.
    """
    parts = template_id.split("-")
    counts = {str(n) for n in CHOICE_COUNTS}
    if len(parts) == 3 and parts[0] in TEMPLATE_SETS and parts[1] in counts:
        for template in load_templates(parts[0], int(parts[1])):
            if template.id == template_id:
                return template
    forms = {name: form for form, name in ANSWER_FORMS.items()}
    answer_ids = template_id.startswith(ANSWER_TEMPLATE_PREFIX) and len(parts) == 4
    if answer_ids and parts[1] in TEMPLATE_SETS and parts[2] in forms:
        for template in load_answer_templates(parts[1], forms[parts[2]]):
            if template.id == template_id:
                return template
    raise EpisodeError(f"unknown template id {template_id!r}; expected e.g. 'unseen-4-03'")


def option_list(options: tuple[str, ...]) -> str:
    """``"(A) 12 (B) 15 ..."``: the options with their letters, in letter order."""
    letters = LETTERS[len(options)]
    return " ".join(f"({letter}) {text}" for letter, text in zip(letters, options, strict=True))


def render(template: Template, values: dict[str, str]) -> str:
    """Fill ``template``'s placeholders from ``values`` in one pass (substituted text is never
    scanned again, so a question containing ``{Q}`` stays as it is). A template period right
    after a value that already ends a sentence (``"... (D) ends here."`` + ``"."``) is dropped.
    """
    out: list[str] = []
    pos = 0
    text = template.text
    for match in _FIELD.finditer(text):
        out.append(text[pos : match.start()])
        value = values[match.group(1)]
        out.append(value)
        pos = match.end()
        if value.rstrip().endswith((".", "?", "!")) and text.startswith(".", pos):
            pos += 1
    out.append(text[pos:])
    return "".join(out)
