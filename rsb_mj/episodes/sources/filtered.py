"""Built-in sources narrowed by their task-file parameters (:mod:`.params`).

:func:`resolve_source` turns a task's :class:`~rsb_mj.lang.task.SourceSpec` into the
:class:`QuestionSource` its episodes draw from: the shared built-in instance when there are
no parameters (so the six suites draw exactly as before), a configured
:class:`~.arithmetic.ArithmeticSource`, a :class:`FilteredSource` keeping the questions of
some subjects or answers in a range (the pools keep the source's fixed split and order), or
a :class:`~.bank.BankSource` for a question bank file.
"""

from __future__ import annotations

from collections.abc import Callable

from rsb_mj.episodes.numeric import parse_number
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.arithmetic import DEFAULT_CONFIG, ArithmeticConfig, ArithmeticSource
from rsb_mj.episodes.sources.base import QuestionSource, check_split
from rsb_mj.episodes.sources.params import (
    MMLU_GROUPS,
    MMLU_PRO_GROUPS,
    check_params,
    names_of,
    range_of,
    subject_key,
)
from rsb_mj.errors import EpisodeError


class FilteredSource(QuestionSource):
    """The questions of ``base`` that ``keep`` accepts, in the base's split and order."""

    def __init__(self, base: QuestionSource, keep: Callable[[Question], bool], label: str):
        self.base = base
        self.keep = keep
        self.label = label
        self.name = base.name
        self.choices = base.choices
        self._pools: dict[str, tuple[Question, ...]] = {}

    def kept(self, split: str) -> tuple[Question, ...]:
        """The questions of ``split`` that ``keep`` accepts, possibly none (cached)."""
        check_split(split)
        if split not in self._pools:
            self._pools[split] = tuple(q for q in self.base.pool(split) or () if self.keep(q))
        return self._pools[split]

    def pool(self, split: str) -> tuple[Question, ...]:
        """The kept questions of ``split``.

        Raises:
            EpisodeError: when no question of ``split`` is left.
        """
        pool = self.kept(split)
        if not pool:
            raise EpisodeError(f"source {self.label}: no {split} questions are left")
        return pool

    def held_out(self) -> tuple[Question, ...] | None:
        """The base source's held-out questions that ``keep`` accepts (None: generated)."""
        base = self.base.held_out()
        return None if base is None else tuple(q for q in base if self.keep(q))

    def question_key(self, question: Question) -> str:
        """The base source's key of ``question``."""
        return self.base.question_key(question)

    def get(self, qid: str) -> Question:
        """The question ``qid`` of the base source."""
        return self.base.get(qid)

    def split_of(self, qid: str) -> str:
        """The split of ``qid`` in the base source."""
        return self.base.split_of(qid)


def _subjects(params: tuple, groups: dict[str, tuple[str, ...]]) -> frozenset[str] | None:
    wanted: set[str] = set()
    found = False
    for name in names_of(params, "subject") or ():
        wanted.add(name)
        found = True
    for group in names_of(params, "group") or ():
        wanted.update(subject_key(s) for s in groups[group.replace(" ", "_")])
        found = True
    return frozenset(wanted) if found else None


def label_of(name: str, params: tuple) -> str:
    """The source as written in the task file: ``(gsm8k (:answer_range 0 100))``."""
    shown = " ".join(f"(:{p.name} {' '.join(map(str, p.values))})" for p in params)
    return f"({name} {shown})"


def arithmetic_config(params: tuple) -> ArithmeticConfig:
    """The :class:`ArithmeticConfig` that ``arithmetic`` parameters select (defaults for the
    ones not given); valid parameters assumed (:func:`~.params.check_params`)."""
    operand = range_of(params, "operand_range") or (DEFAULT_CONFIG.lo, DEFAULT_CONFIG.hi)
    factor = range_of(params, "multiplier_range") or (DEFAULT_CONFIG.mul_lo, DEFAULT_CONFIG.mul_hi)
    ops = names_of(params, "operators")
    return ArithmeticConfig(
        tuple(o for o in DEFAULT_CONFIG.ops if ops is None or o in ops), *operand, *factor
    )


def configured_source(base: QuestionSource, params: tuple) -> QuestionSource:
    """``base`` narrowed by ``params`` (task-file :class:`~rsb_mj.lang.blocks.SourceParam`).

    Raises:
        EpisodeError: for a parameter :func:`~.params.check_params` rejects, or arithmetic
            parameters that leave too few distinct questions to split.
    """
    problems = check_params(base.name, params)
    if problems:
        raise EpisodeError(f"source {base.name!r}: {problems[0].message}")
    if not params:
        return base
    label = label_of(base.name, params)
    if base.name == "arithmetic":
        config = arithmetic_config(params)
        if config.train_size() < 1:
            raise EpisodeError(f"source {label}: too few distinct questions to split")
        return ArithmeticSource(config)
    if base.name == "gsm8k":
        lo, hi = range_of(params, "answer_range") or (0, 0)
        return FilteredSource(base, lambda q: lo <= parse_number(q.answer) <= hi, label)
    groups = MMLU_PRO_GROUPS if base.name == "mmlu_pro" else MMLU_GROUPS
    subjects = _subjects(params, groups)
    return FilteredSource(base, lambda q: subject_key(q.subject) in (subjects or ()), label)
