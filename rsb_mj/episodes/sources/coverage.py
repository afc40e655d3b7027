"""What a narrowed built-in source leaves per split, and what would fill an empty split.

A task file narrows a built-in source with parameters (:mod:`.params`); the narrowed source
(:func:`.filtered.configured_source`) raises at run time when a split has no question left,
or, for arithmetic, when too few distinct questions remain to split. :func:`coverage` counts
with the runtime's own filter (the same :class:`~.filtered.FilteredSource` and
:class:`~.arithmetic.ArithmeticConfig`) the questions of each split that can make an episode
of the task's choice count (:meth:`~rsb_mj.episodes.question.Question.serves`), and says what
would fill an empty split: a widened range (checked with the same filter) or the subjects
with questions in both splits. The linter reports an empty split as RSB458 at the
``:source`` form.

Counting loads the source's questions once per process (cold, on 2 cores: GSM8K about 3 s,
MMLU about 1.3 s, MMLU-Pro about 1 s; arithmetic 10 ms).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache

from rsb_mj.episodes.numeric import parse_number
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.arithmetic import ArithmeticSource
from rsb_mj.episodes.sources.filtered import (
    FilteredSource,
    arithmetic_config,
    configured_source,
    label_of,
)
from rsb_mj.episodes.sources.params import (
    MAX_VALUE,
    MMLU_GROUPS,
    MMLU_PRO_GROUPS,
    names_of,
    range_of,
    subject_key,
)
from rsb_mj.splits import SPLITS

#: Widenings of an arithmetic operand range tried for a fix (each end, 1 step at a time).
MAX_WIDEN = 100


@dataclass(frozen=True)
class Coverage:
    """The questions a narrowed source leaves.

    Attributes:
        label: the source as written, e.g. ``(gsm8k (:answer_range -100 -11))``.
        choices: the choice count the questions were counted for (None: any).
        counts: usable questions per split, ``{"train": n, "eval": n}``.
        hint: what the valid values are and what would fill an empty split (``""`` when
            no split is empty).
        fix: a ``(:source ...)`` form that fills every split (checked with the same
            filter), e.g. ``(:source (gsm8k (:answer_range -100 -10)))``, or None.
    """

    label: str
    choices: int | None
    counts: dict[str, int]
    hint: str = ""
    fix: str | None = None

    @property
    def empty(self) -> tuple[str, ...]:
        """The splits with no usable question."""
        return tuple(split for split in SPLITS if self.counts[split] == 0)

    def message(self) -> str:
        """One line: the empty splits, the counts, and the hint."""
        at = f" at {self.choices} choices" if self.choices is not None else ""
        counts = ", ".join(f"{self.counts[s]} {s}" for s in SPLITS)
        return (
            f"{self.label} leaves no {' or '.join(self.empty)} question{at} ({counts}); {self.hint}"
        )


@lru_cache(maxsize=256)
def coverage(name: str, params: tuple, choices: int | None = None) -> Coverage:
    """What the built-in source ``name`` narrowed by ``params`` (valid task-file
    :class:`~rsb_mj.lang.blocks.SourceParam` values, see :func:`~.params.check_params`) leaves
    per split for episodes of ``choices`` options (None: any count). Cached per process."""
    if name == "arithmetic":
        return _arithmetic(params, choices)
    source = configured_source(get_source(name), params)
    assert isinstance(source, FilteredSource)
    counts = {s: _usable(source.kept(s), choices) for s in SPLITS}
    found = Coverage(label_of(name, params), choices, counts)
    if not found.empty:
        return found
    if name == "gsm8k":
        return _gsm8k(found, params)
    return _subjects(found, name, params)


def _usable(questions: tuple, choices: int | None) -> int:
    return sum(1 for q in questions if choices is None or q.serves(choices))


def _arithmetic(params: tuple, choices: int | None) -> Coverage:
    label = label_of("arithmetic", params)
    config = arithmetic_config(params)
    if config.train_size() >= 1:
        source = ArithmeticSource(config)
        counts = {"train": _usable(source.pool("train"), choices), "eval": source.eval_count()}
        return Coverage(label, choices, counts)
    n = config.count()
    hint = f"{n} distinct question{'' if n == 1 else 's'} cannot be split into train and eval"
    empty = {"train": 0, "eval": 0}
    if range_of(params, "operand_range") is None:  # the default range always splits
        return Coverage(label, choices, empty, hint)
    for step in range(1, MAX_WIDEN + 1):
        for lo, hi in ((config.lo, config.hi + step), (config.lo - step, config.hi)):
            wider = _with_range(params, "operand_range", lo, hi)
            if lo >= 0 and hi <= MAX_VALUE and arithmetic_config(wider).train_size() >= 1:
                configured_source(get_source("arithmetic"), wider)  # the runtime accepts it
                gives = arithmetic_config(wider).count()
                hint += f"; (:operand_range {lo} {hi}) gives {gives}"
                return Coverage(label, choices, empty, hint, _source_form("arithmetic", wider))
    return Coverage(label, choices, empty, hint + "; widen :operand_range")


def _with_range(params: tuple, name: str, lo: int, hi: int) -> tuple:
    """``params`` with the range parameter ``name`` set to ``(lo, hi)``."""
    return tuple(dataclasses.replace(p, values=(lo, hi)) if p.name == name else p for p in params)


def _source_form(name: str, params: tuple) -> str:
    """The whole ``(:source ...)`` form (for parameters of names and numbers, as the range
    parameters of arithmetic and gsm8k are)."""
    return f"(:source {label_of(name, params)})"


def _gsm8k(found: Coverage, params: tuple) -> Coverage:
    """The answers of each empty split, and the answer range widened to the nearest ones."""
    base = get_source("gsm8k")
    lo, hi = range_of(params, "answer_range") or (0, 0)
    notes = []
    for split in found.empty:
        values = sorted(
            parse_number(q.answer)
            for q in base.pool(split)
            if found.choices is None or q.serves(found.choices)
        )
        notes.append(f"gsm8k {split} answers run from {values[0]} to {values[-1]}")
        below = [v for v in values if -MAX_VALUE <= v < lo]
        above = [v for v in values if hi < v <= MAX_VALUE]
        if below and (not above or lo - below[-1] <= above[0] - hi):
            lo = math.floor(below[-1])
        elif above:
            hi = math.ceil(above[0])
    hint = "; ".join(notes)
    wider = _with_range(params, "answer_range", lo, hi)
    source = configured_source(base, wider)
    assert isinstance(source, FilteredSource)
    counts = {s: _usable(source.kept(s), found.choices) for s in SPLITS}
    if wider == params or not all(counts.values()):
        return dataclasses.replace(found, hint=hint)
    kept = " and ".join(f"{counts[s]} {s}" for s in SPLITS)
    return dataclasses.replace(
        found,
        hint=f"{hint}; (:answer_range {lo} {hi}) keeps {kept}",
        fix=_source_form("gsm8k", wider),
    )


def _subjects(found: Coverage, name: str, params: tuple) -> Coverage:
    """The subjects of the named subjects' groups that have questions in both splits."""
    base = get_source(name)
    groups = MMLU_PRO_GROUPS if name == "mmlu_pro" else MMLU_GROUPS
    present = [
        {
            subject_key(q.subject)
            for q in base.pool(split)
            if found.choices is None or q.serves(found.choices)
        }
        for split in SPLITS
    ]
    both = set.intersection(*present)
    wanted = set(names_of(params, "subject") or ())
    given = set(names_of(params, "group") or ())
    near = [
        group
        for group, members in groups.items()
        if subject_key(group) in given or wanted & {subject_key(m) for m in members}
    ]
    names = [m for group in near for m in groups[group] if subject_key(m) in both]
    if not names:
        near, names = [], sorted(both)
    where = f"of the {' and '.join(near)} group{'s' if len(near) > 1 else ''} " if near else ""
    return dataclasses.replace(
        found, hint=f"subjects {where}with questions in both splits: {', '.join(names)}"
    )
