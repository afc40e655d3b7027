"""Parameters of the built-in question sources: the one registry the linter and runtime share.

A task file gives them in its ``:source``::

    (:source (mmlu_pro (:subject biology "computer science")))   ; MMLU-Pro categories
    (:source (mmlu (:group humanities)))                         ; MMLU subject group
    (:source (gsm8k (:answer_range 0 100)))                      ; answers in [0, 100]
    (:source (arithmetic (:operators add sub) (:operand_range 10 49)))

:data:`SOURCE_PARAMS` lists every parameter of every source; :func:`check_params` returns
what is wrong with a task's parameters (the linter reports it as RSB451/RSB452 at the
parameter's position, the runtime raises it). Subject names match case-insensitively with
``_`` read as a space (``computer_science`` = ``"computer science"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rsb_mj.errors import did_you_mean

#: MMLU-Pro categories (``category`` of each row); ``math`` is never in the pool.
MMLU_PRO_SUBJECTS = (
    "biology",
    "business",
    "chemistry",
    "computer science",
    "economics",
    "engineering",
    "health",
    "history",
    "law",
    "other",
    "philosophy",
    "physics",
    "psychology",
)
#: MMLU-Pro categories by subject group (the MMLU paper's four groups).
MMLU_PRO_GROUPS = {
    "stem": ("biology", "chemistry", "computer science", "engineering", "physics"),
    "humanities": ("history", "law", "philosophy"),
    "social_sciences": ("business", "economics", "psychology"),
    "other": ("health", "other"),
}
#: MMLU subjects (file names of ``assets/questions/mmlu/test``) by the four groups of the
#: MMLU paper's ``categories.py`` (hendrycks/test); the mathematics subjects are not in the
#: pool (:data:`rsb_mj.episodes.sources.mmlu.EXCLUDED_SUBJECTS`).
MMLU_GROUPS = {
    "stem": (
        "abstract_algebra",
        "astronomy",
        "college_biology",
        "college_chemistry",
        "college_computer_science",
        "college_mathematics",
        "college_physics",
        "computer_security",
        "conceptual_physics",
        "electrical_engineering",
        "elementary_mathematics",
        "high_school_biology",
        "high_school_chemistry",
        "high_school_computer_science",
        "high_school_mathematics",
        "high_school_physics",
        "high_school_statistics",
        "machine_learning",
    ),
    "humanities": (
        "formal_logic",
        "high_school_european_history",
        "high_school_us_history",
        "high_school_world_history",
        "international_law",
        "jurisprudence",
        "logical_fallacies",
        "moral_disputes",
        "moral_scenarios",
        "philosophy",
        "prehistory",
        "professional_law",
        "world_religions",
    ),
    "social_sciences": (
        "econometrics",
        "high_school_geography",
        "high_school_government_and_politics",
        "high_school_macroeconomics",
        "high_school_microeconomics",
        "high_school_psychology",
        "human_sexuality",
        "professional_psychology",
        "public_relations",
        "security_studies",
        "sociology",
        "us_foreign_policy",
    ),
    "other": (
        "anatomy",
        "business_ethics",
        "clinical_knowledge",
        "college_medicine",
        "global_facts",
        "human_aging",
        "management",
        "marketing",
        "medical_genetics",
        "miscellaneous",
        "nutrition",
        "professional_accounting",
        "professional_medicine",
        "virology",
    ),
}
#: Every MMLU subject.
MMLU_SUBJECTS = tuple(sorted(s for group in MMLU_GROUPS.values() for s in group))
#: Arithmetic operations.
OPERATORS = ("add", "sub", "mul")
#: Largest magnitude of a numeric parameter (answers, operands).
MAX_VALUE = 10**6


def subject_key(text: str) -> str:
    """A subject name as compared: lower case, ``_`` and runs of spaces as one space."""
    return " ".join(str(text).replace("_", " ").lower().split())


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of a source.

    Attributes:
        name: the keyword without its colon (``"subject"``).
        kind: ``"names"`` (one or more of ``valid``) or ``"range"`` (two integers LO HI,
            LO <= HI, within +-:data:`MAX_VALUE`).
        doc: what it selects.
        valid: the valid names of a ``"names"`` parameter.
        min_span: for a ``"range"``, the least HI - LO.
        min_value: for a ``"range"``, the least LO (None: down to -:data:`MAX_VALUE`).
        below_min: why a LO below ``min_value`` is refused (``""``: "must not be negative").
    """

    name: str
    kind: str
    doc: str
    valid: tuple[str, ...] = ()
    min_span: int = 0
    min_value: int | None = None
    below_min: str = ""


#: Every parameter of every built-in source.
SOURCE_PARAMS: dict[str, tuple[ParamInfo, ...]] = {
    "arithmetic": (
        ParamInfo("operators", "names", "operations drawn (default: add sub mul)", OPERATORS),
        ParamInfo(
            "operand_range",
            "range",
            "the operands a, b of a + b and a - b and b of a x b (default 10 99; a - b keeps "
            "a >= b + 10, so the range spans at least 10)",
            min_span=10,
            min_value=0,
        ),
        ParamInfo(
            "multiplier_range",
            "range",
            "the one-digit factor a of a x b (default 2 9; at least 1: the options of a x b "
            "are multiples of a)",
            min_value=1,
            below_min="the options of a x b are multiples of a, so a factor 0 leaves none",
        ),
    ),
    "gsm8k": (ParamInfo("answer_range", "range", "keep problems whose answer is in [LO, HI]"),),
    "mmlu_pro": (
        ParamInfo("subject", "names", "MMLU-Pro categories to keep", MMLU_PRO_SUBJECTS),
        ParamInfo("group", "names", "subject groups to keep", tuple(MMLU_PRO_GROUPS)),
    ),
    "mmlu": (
        ParamInfo("subject", "names", "MMLU subjects to keep", MMLU_SUBJECTS),
        ParamInfo("group", "names", "subject groups to keep", tuple(MMLU_GROUPS)),
    ),
}


@dataclass(frozen=True)
class ParamProblem:
    """What is wrong with one parameter: ``code`` ``"unknown"`` (RSB451) or ``"value"``
    (RSB452), the parameter's index in the task's list, the message and a suggested fix."""

    code: str
    index: int
    message: str
    fix: str | None = None


def check_params(source: str, params: tuple) -> list[ParamProblem]:
    """What is wrong with ``params`` (:class:`rsb_mj.lang.blocks.SourceParam` values) of the
    built-in ``source``: unknown or repeated parameters, wrong value counts or types,
    unknown names, inverted or out-of-range ranges."""
    known = {p.name: p for p in SOURCE_PARAMS.get(source, ())}
    out: list[ParamProblem] = []
    seen: set[str] = set()
    for index, param in enumerate(params):
        info = known.get(param.name)
        if info is None:
            valid = ", ".join(f":{k}" for k in known) or "none"
            close = did_you_mean(param.name, list(known))
            hint = f"did you mean :{close}? " if close else ""
            out.append(
                ParamProblem(
                    "unknown",
                    index,
                    f"source {source!r} has no parameter :{param.name}; {hint}valid choices: "
                    f"{valid}",
                    f":{close}" if close else None,
                )
            )
            continue
        if param.name in seen:
            out.append(ParamProblem("value", index, f":{param.name} is given twice"))
            continue
        seen.add(param.name)
        problem = _check_value(info, param.values)
        if problem:
            out.append(ParamProblem("value", index, f":{param.name} {problem[0]}", problem[1]))
    return out


def _check_value(info: ParamInfo, values: tuple) -> tuple[str, str | None] | None:
    if info.kind == "names":
        if not values:
            return f"needs at least one name; valid choices: {', '.join(info.valid)}", None
        keys = {subject_key(v): v for v in info.valid}
        for value in values:
            if isinstance(value, int | float) or subject_key(value) not in keys:
                close = did_you_mean(subject_key(str(value)), list(keys))
                hint = f"did you mean {keys[close]!r}? " if close else ""
                return (
                    f"{value!r} is unknown; {hint}valid choices: {', '.join(info.valid)}",
                    keys[close] if close else None,
                )
        return None
    if len(values) != 2 or not all(isinstance(v, int) for v in values):
        return "takes two whole numbers LO HI", None
    lo, hi = values
    if max(abs(lo), abs(hi)) > MAX_VALUE:
        return f"({lo} {hi}) must lie within +-{MAX_VALUE}", None
    if hi - lo < info.min_span:
        if lo > hi:
            return f"({lo} {hi}) is inverted; write ({hi} {lo})", f"({hi} {lo})"
        return f"({lo} {hi}) must span at least {info.min_span}", None
    if info.min_value is not None and lo < info.min_value:
        if not info.below_min:
            return f"({lo} {hi}) must not be negative", None
        fix = f"({info.min_value} {max(hi, info.min_value)})"
        return f"({lo} {hi}) must start at {info.min_value} or more: {info.below_min}", fix
    return None


def names_of(params: tuple, name: str) -> tuple[str, ...] | None:
    """The subject keys of the ``names`` parameter ``name`` in ``params``, or None."""
    for param in params:
        if param.name == name:
            return tuple(subject_key(str(v)) for v in param.values)
    return None


def range_of(params: tuple, name: str) -> tuple[int, int] | None:
    """``(LO, HI)`` of the ``range`` parameter ``name`` in ``params``, or None."""
    for param in params:
        if param.name == name:
            lo, hi = param.values
            return int(lo), int(hi)
    return None


#: A keep-rule on questions (used by the filtered sources).
Keep = Callable[[object], bool]
