"""The suites: which task file, question source and choice count each uses.

:data:`SUITES` holds the six RSB suites (``--suite all``); :data:`A2A_SUITES` the twelve
Act2Answer suites ``A2A-<Category>`` (``--suite a2a``), one per knowledge category of
:data:`rsb_mj.lang.a2a.A2A_SOURCES`. :func:`get_suite` knows both.

Levels follow VLA-Arena's task-structure axis: L0 is the suite as the RSB paper runs it; L1
(``RSB-<Suite>-<N>-L1``) adds static distractor objects that are not candidates; L2 adds
moving distractors and a hazard with a safety cost (:data:`LEVEL_SUITES`). A level's table row
``i`` is its base suite's row ``i`` (same seed, question, mapping, colors and candidate layout)
plus what the level adds, so levels compare episode by episode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rsb_mj.errors import RsbError, did_you_mean
from rsb_mj.lang.a2a import A2A_SOURCES
from rsb_mj.resources import tasks_dir

__all__ = [
    "GOAL_LABEL",
    "GOAL_MAX_STEPS",
    "GOAL_SUITES",
    "SUITES",
    "TASK_MAX_STEPS",
    "GoalSuite",
    "Suite",
    "get_suite",
    "goal_suite",
    "named_goal_suite",
]

#: Control steps of an episode of a task file that is not a named suite (``RSB-Task-v0``,
#: ``rsb eval tasks/x.bddl``): the default of :attr:`Suite.max_steps`.
TASK_MAX_STEPS = 400
#: The label results on goal scenes carry: another robot, a mapped table frame, stand-in
#: objects; not comparable with published LIBERO / VLA-Arena numbers.
GOAL_LABEL = "LIBERO/VLA-Arena layouts on Aloha"
#: Control steps of a goal task's episode (a LIBERO / VLA-Arena style file: 30 s at 20 Hz).
GOAL_MAX_STEPS = 600


@dataclass(frozen=True)
class Suite:
    """A named benchmark suite.

    Attributes:
        name: e.g. ``"RSB-Math-4"``.
        task_file: file name in ``tasks/``.
        source: question source id (``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu``,
            ``a2a_color`` ...).
        choices: 4 or 10 (2 for Act2Answer).
        max_steps: control steps before the episode is truncated (at ``CONTROL_HZ``).
        family: ``"rsb"`` or ``"a2a"`` (Act2Answer: :mod:`rsb_mj.lang.a2a`).
        level: task-structure level, 0 (the suite itself), 1 or 2.
        base: for a level > 0, the name of the L0 suite whose rows it extends.
    """

    name: str
    task_file: str
    source: str
    choices: int
    max_steps: int = TASK_MAX_STEPS
    family: str = "rsb"
    level: int = 0
    base: str = ""

    @property
    def base_name(self) -> str:
        """The L0 suite's name (this suite's own at level 0)."""
        return self.base or self.name

    @property
    def path(self) -> Path:
        """Absolute path of the suite's task file."""
        return tasks_dir() / self.task_file

    @property
    def env_id(self) -> str:
        """The gymnasium id, e.g. ``"rsb_mj/RSB-Math-4-v0"``."""
        return f"rsb_mj/{self.name}-v0"


SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite("RSB-Math-4", "rsb_math_4.bddl", "arithmetic", 4),
        Suite("RSB-Math-10", "rsb_math_10.bddl", "arithmetic", 10),
        Suite("RSB-HardMath-4", "rsb_hardmath_4.bddl", "gsm8k", 4),
        Suite("RSB-HardMath-10", "rsb_hardmath_10.bddl", "gsm8k", 10),
        Suite("RSB-General-4", "rsb_general_4.bddl", "mmlu_pro", 4),
        Suite("RSB-General-10", "rsb_general_10.bddl", "mmlu_pro", 10),
    )
}


#: The Act2Answer suites, ``A2A-<Category>`` (e.g. ``A2A-Color``), binary items.
A2A_SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(f"A2A-{category.title()}", f"{source}.bddl", source, 2, family="a2a")
        for category, source in A2A_SOURCES.items()
    )
}


def expand_suites(names: list[str]) -> list[str]:
    """Suite names with the groups of :data:`SUITE_GROUPS` expanded (other names kept)."""
    out: list[str] = []
    for name in names:
        out += list(SUITE_GROUPS.get(name.lower(), {name: None}))
    return out


def is_a2a_suite(name: str) -> bool:
    """True for an Act2Answer suite name (``A2A-Color``, case-insensitive)."""
    key = name.removeprefix("rsb_mj/").removesuffix("-v0").lower()
    return any(s.lower() == key for s in A2A_SUITES)


#: Task-structure levels above L0 that every suite has.
LEVELS = (1, 2)


def _level(suite: Suite, level: int) -> Suite:
    stem = suite.task_file.removesuffix(".bddl")
    return Suite(
        f"{suite.name}-L{level}",
        f"{stem}_l{level}.bddl",
        suite.source,
        suite.choices,
        suite.max_steps,
        level=level,
        base=suite.name,
    )


#: The L1 (and L2) variants of the six suites, by level then suite.
LEVEL_SUITES: dict[str, Suite] = {
    s.name: s for level in LEVELS for s in (_level(b, level) for b in SUITES.values())
}
#: Every RSB suite: the six L0 suites, then their levels (the A2A suites are apart).
ALL_SUITES: dict[str, Suite] = {**SUITES, **LEVEL_SUITES}


def suites_at(level: int) -> list[str]:
    """Names of the six suites at ``level`` (0: the suites themselves), in registry order."""
    return [s.name for s in ALL_SUITES.values() if s.level == level]


#: Group names a suite argument may use: ``all`` (the six RSB suites), ``all-L1`` (their L1
#: suites; ``all-L2`` likewise), ``a2a``.
SUITE_GROUPS: dict[str, dict[str, Suite]] = {
    "all": SUITES,
    **{f"all-l{k}": {n: LEVEL_SUITES[n] for n in suites_at(k)} for k in LEVELS},
    "a2a": A2A_SUITES,
}


def get_suite(name: str) -> Suite:
    """The suite called ``name`` (case-insensitive; a trailing ``-v0`` is accepted).

    Raises:
        RsbError: for an unknown name, listing the valid ones.
    """
    key = name.removeprefix("rsb_mj/").removesuffix("-v0")
    for suite in (*ALL_SUITES.values(), *A2A_SUITES.values()):
        if suite.name.lower() == key.lower():
            return suite
    if key.lower() in SUITE_GROUPS or goal_suite(key):  # named, but not one question suite
        kind = "a goal suite" if goal_suite(key) else "a group of suites"
        raise RsbError(
            f"suite {name!r} is {kind}, not one suite; valid choices here: "
            + ", ".join([*ALL_SUITES, *A2A_SUITES])
        )
    choices = suite_choices()
    close = did_you_mean(key, choices)
    hint = f"; did you mean {close!r}?" if close else ""
    raise RsbError(f"unknown suite {name!r}; valid choices: {', '.join(choices)}{hint}")


def suite_choices() -> list[str]:
    """Every name a suite argument (``rsb eval --suite``) takes, the one list that errors
    name and suggest from: the RSB suites and their levels, the Act2Answer suites, the
    groups of :data:`SUITE_GROUPS` (``all``, ``all-L1``, ``all-L2``, ``a2a``) and the goal
    suites of :data:`GOAL_SUITES`."""
    groups = [g.replace("-l", "-L") for g in SUITE_GROUPS]
    return [*ALL_SUITES, *A2A_SUITES, *groups, *GOAL_SUITES]


@dataclass(frozen=True)
class GoalSuite:
    """A named suite of shipped goal task files (LIBERO / VLA-Arena layouts on the Aloha).

    Its episodes are the rows of a frozen table (:mod:`rsb_mj.tables.layouts`): ``rsb eval
    --suite NAME --split eval --episodes N --start S`` runs rows ``S .. S+N-1`` of every file,
    each row a seed and the layout drawn from it.

    Attributes:
        name: e.g. ``"vla-arena"`` (lower case, matched case-insensitively).
        folder: the folder under ``tasks/`` holding its files (searched recursively).
        pattern: a glob the files' paths relative to ``folder`` match, e.g. ``"*/level_0/*"``.
        label: how its results are labelled.
        table: the suite whose frozen tables hold its rows (``""``: its own); VLA-Arena's
            levels and suites read ``vla-arena``'s, LIBERO's suites ``libero``'s.
        tiers: only the files of these tiers (:func:`rsb_mj.lang.task.tier_of`;
            ``()``: every file): ``libero-layouts`` is LIBERO's tier A0/A1 files.
    """

    name: str
    folder: str
    pattern: str = "*"
    label: str = ""
    table: str = ""
    tiers: tuple[str, ...] = ()

    @property
    def table_suite(self) -> str:
        """The name of the suite whose tables hold this suite's rows."""
        return self.table or self.name

    @property
    def files(self) -> list[Path]:
        """The suite's task files, sorted by path."""
        root = tasks_dir() / self.folder
        found = sorted(p for p in root.rglob("*.bddl") if p.relative_to(root).match(self.pattern))
        return [p for p in found if not self.tiers or _tier(str(p)) in self.tiers]

    @property
    def env_ids(self) -> list[str]:
        """The gymnasium ids of its files (:func:`goal_env_id`), in file order."""
        return [goal_env_id(p) for p in self.files]


@cache
def _tier(path: str) -> str:
    """The tier of the task file ``path`` (read once per process)."""
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import tier_of  # deferred: the parser only where tiers filter

    return tier_of(parse_file(Path(path)))


#: The id prefix of each shipped goal folder's files (:func:`goal_env_id`).
GOAL_ID_PREFIX = {"libero": "LIBERO", "vla_arena": "VLA-Arena"}


def goal_env_id(path: Path) -> str:
    """The gymnasium id of a shipped goal task file: its source's prefix, then its path
    under the source folder with ``.`` for ``/`` and no ``.bddl``
    (``tasks/vla_arena/long_horizon/level_0/x.bddl`` ->
    ``rsb_mj/VLA-Arena.long_horizon.level_0.x-v0``); characters a gymnasium id cannot hold
    (VLA-Arena's commas) are left out.

    Raises:
        RsbError: for a file outside the shipped goal folders.
    """
    rel = Path(path).resolve().relative_to(tasks_dir().resolve())
    if rel.parts[0] not in GOAL_ID_PREFIX:
        raise RsbError(
            f"{path}: not a shipped goal task file (under tasks/{{{', '.join(GOAL_ID_PREFIX)}}})"
        )
    name = re.sub(r"[^\w.-]", "", ".".join(rel.with_suffix("").parts[1:]))  # no commas
    return f"rsb_mj/{GOAL_ID_PREFIX[rel.parts[0]]}.{name}-v0"


_LIBERO_LABEL, _VLA_LABEL = "LIBERO layouts on Aloha", "VLA-Arena layouts on Aloha"
#: LIBERO's five suites (folders of ``tasks/libero``) by the names papers report them under.
LIBERO_SUITES = ("libero_spatial", "libero_object", "libero_goal", "libero_10", "libero_90")
#: VLA-Arena's eleven suites (folders of ``tasks/vla_arena``, each with levels 0-2).
VLA_ARENA_SUITES = (
    "safety_static_obstacles",
    "safety_dynamic_obstacles",
    "safety_hazard_avoidance",
    "safety_object_state_preservation",
    "safety_risk_aware_grasping",
    "robustness_static_distractors",
    "robustness_dynamic_distractors",
    "generalization_object_preposition_combinations",
    "generalization_task_workflows",
    "generalization_unseen_objects",
    "long_horizon",
)


def _named(folder: str) -> str:
    return folder.replace("_", "-")


#: The shipped goal suites: every LIBERO file (``libero``, its tables) and LIBERO's five
#: suites; ``libero-layouts``, LIBERO's tier A0/A1 files with their own tables (as before
#: tiers B and C were built); every VLA-Arena file (``vla-arena``, its tables), its three
#: levels and its eleven suites by their folder names (``safety-static-obstacles``, ...,
#: ``long-horizon``).
GOAL_SUITES: dict[str, GoalSuite] = {
    s.name: s
    for s in (
        GoalSuite("libero", "libero", label=_LIBERO_LABEL),
        *(
            GoalSuite(_named(f), "libero", f"{f}/*.bddl", _LIBERO_LABEL, "libero")
            for f in LIBERO_SUITES
        ),
        GoalSuite("libero-layouts", "libero", label=_LIBERO_LABEL, tiers=("A0", "A1")),
        GoalSuite("vla-arena", "vla_arena", label=_VLA_LABEL),
        *(
            GoalSuite(
                f"vla-arena-l{k}", "vla_arena", f"*/level_{k}/*.bddl", _VLA_LABEL, "vla-arena"
            )
            for k in range(3)
        ),
        *(
            GoalSuite(_named(f), "vla_arena", f"{f}/*/*.bddl", _VLA_LABEL, "vla-arena")
            for f in VLA_ARENA_SUITES
        ),
    )
}


#: VLA-Arena's later suite names (its releases after ec1b978 renamed five folders:
#: ``extrapolation_*``, ``distractor_*``, ``safety_cautious_grasp``,
#: ``safety_state_preservation``; same files, tier for tier) -> the shipped suite's name.
GOAL_SUITE_ALIASES: dict[str, str] = {
    "extrapolation-preposition-combinations": "generalization-object-preposition-combinations",
    "extrapolation-task-workflows": "generalization-task-workflows",
    "extrapolation-unseen-objects": "generalization-unseen-objects",
    "distractor-static-distractors": "robustness-static-distractors",
    "distractor-dynamic-distractors": "robustness-dynamic-distractors",
    "safety-cautious-grasp": "safety-risk-aware-grasping",
    "safety-state-preservation": "safety-object-state-preservation",
}


#: The source folders of the shipped goal files (``tasks/libero``, ``tasks/vla_arena``) and
#: the suite folders each holds.
_SUITE_FOLDERS = {"libero": LIBERO_SUITES, "vla_arena": VLA_ARENA_SUITES}


def named_goal_suite(path: str | Path) -> str | None:
    """The LIBERO or VLA-Arena suite, by the name ``rsb eval --suite`` takes, whose folder
    holds the task file ``path`` (``tasks/libero/libero_goal/x.bddl`` -> ``libero-goal``,
    ``vla_arena/long_horizon/level_0/x.bddl`` -> ``long-horizon``; the last ``libero`` or
    ``vla_arena`` folder of the path and the folder under it, so a copy of the sources'
    tree elsewhere, ``tests/data/bddl_suites``, is named too), or None for a file outside
    such a folder.

    >>> named_goal_suite("tasks/vla_arena/long_horizon/level_0/x.bddl")
    'long-horizon'
    """
    parts = Path(path).parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in _SUITE_FOLDERS:
            return _named(parts[i + 1]) if parts[i + 1] in _SUITE_FOLDERS[parts[i]] else None
    return None


def goal_suite(name: str) -> GoalSuite | None:
    """The goal suite called ``name`` (case-insensitive; a VLA-Arena suite also by its later
    name, :data:`GOAL_SUITE_ALIASES`), or None for any other name."""
    key = name.lower()
    return GOAL_SUITES.get(GOAL_SUITE_ALIASES.get(key, key))
