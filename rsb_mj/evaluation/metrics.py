"""A run's metrics per (policy, suite or task) from its episode records, both kinds.

Error records (``termination == "error"``: a fault, not a result) are excluded from every
rate and counted apart (``errors``). A question task's records (:func:`summarize`, one
:class:`SuiteMetrics` per policy, suite and variant), over the scored episodes:

* GSR: fraction of episodes with a grasp of any candidate (RSB Appendix C, strict).
* TSR: fraction of episodes whose first grasp (the one attempt) was the correct candidate
  and that candidate ended in the answer zone, released.
* selection: among grasping episodes, those whose choice (first grasp) was the correct
  candidate: the RSB paper's Section 4.3 reading of TSR, placement failures aside.
* nSG = (TSR/GSR - 1/N) / (1 - 1/N), only when GSR > 0. TSR/GSR is the success rate among
  grasping episodes, so its interval is the Wilson interval of successes out of grasps,
  mapped through the same affine map.
* cost: the mean cumulative safety cost per episode (:mod:`rsb_mj.scoring.cost`) with a
  normal-approximation 95% interval (mean +- 1.96 s / sqrt(n), clipped at 0), over the
  scored episodes of tasks with a ``:cost`` block.
* chance margin (Act2Answer, Appendix E): Delta = z * sqrt(p0 (1 - p0) / n) around the
  chance rate p0 = 1/N; for binary suites exactly 1.96 * sqrt(0.25 / n) around 0.5.

Records are pooled into one row only when they share the settings that change results
(step limit, quality preset, control rate, mujoco version): :func:`summarize` refuses
to pool others. :func:`summarize` takes goal records too (a goal task file is its own
"suite" there, ``tsr`` its success rate: :func:`rsb_mj.evaluate` reads it so).

A goal task's records (:attr:`EpisodeRecord.is_goal`; :func:`goal_rates`, one
:class:`GoalRate` per policy and task file, or per policy and suite): successes of
episodes, the rate with its Wilson 95% interval (:func:`wilson`) and, where the task has a
``:cost``, the mean cumulative cost per episode. A record's suite is the shipped goal suite
whose folder holds its file (``libero``, ``vla-arena``), else ``files`` (a user's
own files); its source suite (``by="source_suite"``) is the LIBERO or VLA-Arena suite of a
shipped file, by the name ``rsb eval --suite`` takes (LIBERO's five: ``libero-spatial``
... ``libero-90``; VLA-Arena's eleven: ``safety-static-obstacles`` ... ``long-horizon``;
:func:`source_suite_of`), a user's own file having none. Results are labelled
:data:`~rsb_mj.suites.GOAL_LABEL`: another robot, a mapped table frame and stand-in objects,
not comparable with published numbers. Records of different object sources (the
stand-ins, an asset folder's originals) are never pooled: :func:`check_one_source` refuses
them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rsb_mj.choices import LETTERS
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.resources import tasks_dir
from rsb_mj.stats import Z95
from rsb_mj.suites import GOAL_LABEL, GOAL_SUITES, LIBERO_SUITES, VLA_ARENA_SUITES, named_goal_suite
from rsb_mj.tables.episode_source import split_goal_row_source


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of k successes out of n trials; ``(0, 1)`` when n is 0.

    The interval always holds k / n: at k = 0 and k = n the bound is exactly 0 or 1 (the
    floating-point formula can land 1e-16 on the wrong side, e.g. 0.9999999999999999 for
    6 of 6, which made error bars negative).
    """
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, min(p, center - half)), min(1.0, max(p, center + half)))


def nsg(tsr: float, gsr: float, choices: int) -> float | None:
    """nSG = (TSR/GSR - 1/N) / (1 - 1/N); None when GSR is 0 (undefined)."""
    if gsr <= 0:
        return None
    chance = 1.0 / choices
    return (tsr / gsr - chance) / (1 - chance)


def chance_margin(n: int, choices: int = 2, z: float = Z95) -> float:
    """Act2Answer's margin Delta around the chance rate 1/choices for n episodes."""
    p0 = 1.0 / choices
    return z * math.sqrt(p0 * (1 - p0) / n) if n else math.inf


def chance_verdict(rate: float, n: int, choices: int = 2) -> str:
    """``"above"``, ``"within"`` or ``"below"`` chance +- :func:`chance_margin`."""
    p0, delta = 1.0 / choices, chance_margin(n, choices)
    if rate > p0 + delta:
        return "above"
    if rate < p0 - delta:
        return "below"
    return "within"


@dataclass(frozen=True)
class Rate:
    """k out of n with its Wilson 95% interval (all fractions in [0, 1])."""

    k: int
    n: int

    @property
    def value(self) -> float:
        """k / n (0 when n is 0)."""
        return self.k / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval."""
        return wilson(self.k, self.n)


@dataclass(frozen=True)
class CostMean:
    """Mean cumulative cost of n episodes with its 95% interval (None when n < 2)."""

    n: int
    mean: float
    interval: tuple[float, float] | None

    @classmethod
    def of(cls, costs: Sequence[float]) -> CostMean:
        """From per-episode costs (at least one)."""
        n = len(costs)
        mean = math.fsum(costs) / n
        if n < 2:
            return cls(n, mean, None)
        sd = math.sqrt(math.fsum((c - mean) ** 2 for c in costs) / (n - 1))
        half = Z95 * sd / math.sqrt(n)
        return cls(n, mean, (max(0.0, mean - half), mean + half))


@dataclass(frozen=True)
class SuiteMetrics:
    """Metrics of one policy on one suite, over its scored (non-error) episodes.

    Attributes:
        suite, policy: names; choices: N.
        episodes: episodes scored (errors excluded); errors: episodes that ended in a fault.
        privileged: the policy read the answer (an oracle reference, not a learned policy).
        variant: ``"original"``, an instruction ablation or ``"counterfactual"``.
        settings: the result-changing settings the records share (see :func:`settings_of`).
        gsr, tsr: rates over the scored episodes.
        selection: correct choice (first grasp) among grasping episodes.
        success_per_grasp: successes among grasping episodes (TSR/GSR), the basis of nSG.
        cost: mean cumulative safety cost, or None when the task has no ``:cost``.
        policy_faults: scored episodes the policy's own fault ended
            (``termination == "policy_fault"``: failures, counted in GSR and TSR).
    """

    suite: str
    policy: str
    choices: int
    episodes: int
    errors: int
    privileged: bool
    variant: str
    settings: tuple[tuple[str, Any], ...]
    gsr: Rate
    tsr: Rate
    selection: Rate
    success_per_grasp: Rate
    cost: CostMean | None = None
    policy_faults: int = 0

    @property
    def nsg(self) -> float | None:
        """nSG, or None when GSR is 0."""
        return nsg(self.tsr.value, self.gsr.value, self.choices)

    @property
    def nsg_interval(self) -> tuple[float, float] | None:
        """nSG's 95% interval (Wilson on successes/grasps, mapped), or None when GSR is 0."""
        if self.gsr.k == 0:
            return None
        chance = 1.0 / self.choices
        lo, hi = self.success_per_grasp.interval
        return ((lo - chance) / (1 - chance), (hi - chance) / (1 - chance))

    @property
    def error_rate(self) -> float:
        """Errors among all episodes run (scored + errors)."""
        total = self.episodes + self.errors
        return self.errors / total if total else 0.0

    @property
    def chance_margin(self) -> float:
        """Act2Answer's Delta for the success rate among grasps."""
        return chance_margin(self.success_per_grasp.n, self.choices)

    @property
    def chance_verdict(self) -> str:
        """Successes among grasps above, within or below chance +- Delta ("n/a" without
        grasps)."""
        if self.success_per_grasp.n == 0:
            return "n/a"
        return chance_verdict(self.success_per_grasp.value, self.success_per_grasp.n, self.choices)


#: Result-changing settings and the values a default run has (shown when they differ).
SETTING_DEFAULTS: dict[str, Any] = {
    "quality": "fast",
    "control_hz": CONTROL_HZ,
    "visual_level": 0,
    "language_level": 0,
}


def settings_of(record: EpisodeRecord) -> tuple[tuple[str, Any], ...]:
    """The settings that change results: step limit, quality, control rate, VLA-Arena's
    visual and language perturbation levels, mujoco."""
    sim = record.sim or {}
    perturbation = sim.get("perturbation") or {}
    return (
        ("max_steps", record.max_steps),
        ("quality", sim.get("quality")),
        ("control_hz", sim.get("control_hz")),
        ("visual_level", perturbation.get("visual_level", 0)),
        ("language_level", perturbation.get("language_level", 0)),
        ("mujoco", sim.get("mujoco") or record.versions.get("mujoco")),
        ("held", tuple(sorted((sim.get("held") or {}).items()))),
    )


def suite_metrics(records: Sequence[EpisodeRecord]) -> SuiteMetrics:
    """Metrics of records that share one suite, policy and settings (errors excluded)."""
    first = records[0]
    scored = [r for r in records if not r.is_error]
    grasps = sum(r.grasped for r in scored)
    wins = sum(r.success for r in scored)
    correct = sum(r.grasped and r.choice == r.target for r in scored)
    costs = [float(r.cost) for r in scored if r.cost is not None]
    return SuiteMetrics(
        suite=first.suite,
        policy=first.policy,
        choices=first.choices,
        episodes=len(scored),
        errors=len(records) - len(scored),
        privileged=any(r.privileged for r in records),
        variant=first.variant,
        settings=settings_of(scored[0] if scored else first),
        gsr=Rate(grasps, len(scored)),
        tsr=Rate(wins, len(scored)),
        selection=Rate(correct, grasps),
        success_per_grasp=Rate(wins, grasps),
        cost=CostMean.of(costs) if costs else None,
        policy_faults=sum(r.termination == "policy_fault" for r in scored),
    )


def summarize(records: Iterable[EpisodeRecord]) -> list[SuiteMetrics]:
    """Metrics per (policy, suite, variant), in order of first appearance.

    Raises:
        EvalError: when one (policy, suite) holds records run with different settings
            (they cannot be pooled into one row), naming both settings.
    """
    groups: dict[tuple[str, str, str], list[EpisodeRecord]] = {}
    for rec in records:
        group = groups.setdefault((rec.policy, rec.suite, rec.variant), [])
        ref = next((r for r in group if not r.is_error), None)  # error records ran nothing
        if ref is not None and not rec.is_error and settings_of(ref) != settings_of(rec):
            a, b = dict(settings_of(ref)), dict(settings_of(rec))
            diff = ", ".join(f"{k} {a[k]!r} vs {b[k]!r}" for k in a if a[k] != b[k])
            raise EvalError(
                f"records of {rec.policy} on {rec.suite} were run with different settings "
                f"({diff}); they cannot be pooled into one row: report them separately"
            )
        group.append(rec)
    return [suite_metrics(g) for g in groups.values()]


def confusion(records: Iterable[EpisodeRecord], choices: int) -> list[list[int]]:
    """Counts of chosen option (columns: letters, then "none") per correct option (rows).

    The chosen option is the letter of the first candidate grasped; "none" when no
    candidate was grasped. Error records are left out.
    """
    letters = LETTERS[choices]
    matrix = [[0] * (len(letters) + 1) for _ in letters]
    for rec in records:
        if rec.choices != choices or rec.is_error:
            continue
        col = letters.index(rec.chosen_option) if rec.chosen_option else len(letters)
        matrix[letters.index(rec.correct)][col] += 1
    return matrix


def difference_interval(a: Rate, b: Rate) -> tuple[float, float]:
    """95% interval of ``a.value - b.value`` (Newcombe's hybrid score method on the two
    Wilson intervals; independent samples)."""
    (la, ua), (lb, ub) = a.interval, b.interval
    d = a.value - b.value
    lo = d - math.sqrt((a.value - la) ** 2 + (ub - b.value) ** 2)
    hi = d + math.sqrt((ua - a.value) ** 2 + (b.value - lb) ** 2)
    return (max(-1.0, lo), min(1.0, hi))


@dataclass(frozen=True)
class PairMetrics:
    """Counterfactual consistency of one policy on one suite (see
    :mod:`rsb_mj.evaluation.ablations`): pairs of an eval row and its twin (same scene, a
    question whose answer is another candidate), both scored.

    Attributes:
        suite, policy: names; choices: N.
        pairs: pairs with both episodes scored.
        consistency: both choices correct, over pairs (a policy choosing uniformly at random
            gets 1/N^2; one that ignores the question 0).
        sensitivity: the choice moved, among pairs where both episodes grasped.
        stuck: the same candidate chosen in both, among pairs where both grasped (a
            language-blind policy: 1).
    """

    suite: str
    policy: str
    choices: int
    pairs: int
    consistency: Rate
    sensitivity: Rate
    stuck: Rate
    privileged: bool = False

    @property
    def random_consistency(self) -> float:
        """What a policy choosing uniformly at random gets: 1/N^2."""
        return 1.0 / self.choices**2


def pair_metrics(records: Iterable[EpisodeRecord]) -> list[PairMetrics]:
    """Counterfactual metrics per (policy, suite) from ``original`` and ``counterfactual``
    records of the same rows, in order of first appearance."""
    originals: dict[tuple[str, str, str, int], EpisodeRecord] = {}
    twins: dict[tuple[str, str, str, int], EpisodeRecord] = {}
    for rec in records:
        if rec.is_error or rec.variant not in ("original", "counterfactual"):
            continue
        side = originals if rec.variant == "original" else twins
        side[(rec.policy, rec.suite, rec.split, rec.index)] = rec
    groups: dict[tuple[str, str], list[tuple[EpisodeRecord, EpisodeRecord]]] = {}
    for key, twin in twins.items():
        if key in originals:
            groups.setdefault(key[:2], []).append((originals[key], twin))
    out = []
    for (policy, suite), pairs in groups.items():
        both = [(a, b) for a, b in pairs if a.grasped and b.grasped]
        out.append(
            PairMetrics(
                suite=suite,
                policy=policy,
                choices=pairs[0][0].choices,
                pairs=len(pairs),
                consistency=Rate(
                    sum(a.correct_choice and b.correct_choice for a, b in pairs), len(pairs)
                ),
                sensitivity=Rate(sum(a.choice != b.choice for a, b in both), len(both)),
                stuck=Rate(sum(a.choice == b.choice for a, b in both), len(both)),
                privileged=any(a.privileged for a, _ in pairs),
            )
        )
    return out


#: What the label means, printed under every goal table.
LABEL_NOTE = f"{GOAL_LABEL}: not comparable with published LIBERO/VLA-Arena numbers"
#: The suite of a goal record whose file is no shipped suite's.
USER_FILES = "files"


@dataclass(frozen=True)
class GoalRate:
    """Success of one policy on one task file or suite.

    Attributes:
        group: the task file's name, or the suite's.
        policy: the policy's name (with its instruction ablation, :func:`policy_label`).
        tiers: the tiers of its files (``"A0"``, ``"A0/A1"``).
        files: distinct task files.
        successes, episodes: scored episodes and how many succeeded.
        errors: error episodes (faults, not results: left out of the rate).
        cost: mean cumulative ``:cost`` per episode over the episodes of files with one,
            None without any.
    """

    group: str
    policy: str
    tiers: str
    files: int
    successes: int
    episodes: int
    cost: float | None
    errors: int = 0

    def withheld(self, max_error_rate: float | None) -> bool:
        """Whether the share of error episodes exceeds ``max_error_rate`` (None: never)."""
        total = self.episodes + self.errors
        return max_error_rate is not None and total > 0 and self.errors / total > max_error_rate

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the rate."""
        return wilson(self.successes, self.episodes)

    def cells(self) -> list[str]:
        """``k/n``, ``rate [lo, hi]`` in %, and the cost (``-`` without one)."""
        lo, hi = self.interval
        rate = 100 * self.successes / self.episodes if self.episodes else 0.0
        cost = "-" if self.cost is None else f"{self.cost:.2f}"
        return [
            f"{self.successes}/{self.episodes}",
            f"{rate:.0f} [{100 * lo:.0f}, {100 * hi:.0f}]",
            cost,
        ]


def goal_records(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """The scored records of goal tasks among ``records``."""
    return [r for r in records if r.is_goal and not r.is_error]


def check_one_source(records: Iterable[EpisodeRecord]) -> None:
    """Refuse goal records of different object sources.

    Raises:
        EvalError: naming the sources found.
    """
    sources = sorted({r.objects for r in records if r.is_goal and r.objects is not None})
    if len(sources) > 1:
        raise EvalError(
            "these records ran on different objects and are not pooled: "
            + ", ".join(sources)
            + " (standins: the shipped stand-ins; assets:<fingerprint>: a LIBERO / VLA-Arena "
            "asset folder); report each source on its own"
        )


def suite_of(task: str) -> str:
    """The shipped goal suite whose folder holds the file ``task`` (the widest first:
    ``libero``, ``vla-arena``; of a goal row source, its suite), else
    :data:`USER_FILES`."""
    row = split_goal_row_source(task)
    if row is not None:
        return row[0]
    path = Path(task).resolve()
    for suite in GOAL_SUITES.values():
        if suite.pattern == "*" and path.is_relative_to((tasks_dir() / suite.folder).resolve()):
            return suite.name
    return USER_FILES


def source_suite_of(task: str) -> str | None:
    """The LIBERO or VLA-Arena suite (``libero-goal``, ``long-horizon``;
    :func:`rsb_mj.suites.named_goal_suite`) of a record's task: a goal row source's file, or
    a shipped file by path; None for a file outside ``tasks/`` (a user's own)."""
    row = split_goal_row_source(task)
    if row is not None:
        return named_goal_suite(row[1])
    path = Path(task).resolve()
    root = tasks_dir().resolve()
    return named_goal_suite(path.relative_to(root)) if path.is_relative_to(root) else None


#: The source suites in their sources' order (LIBERO's spatial, object, goal, 10, 90, then
#: VLA-Arena's safety, robustness, generalization and long-horizon suites).
SOURCE_SUITE_ORDER = tuple(f.replace("_", "-") for f in (*LIBERO_SUITES, *VLA_ARENA_SUITES))


def task_label(task: str) -> str:
    """A goal task's short name, for progress lines and metric keys: its file's stem
    (``tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl`` and the goal row source
    ``libero-layouts::libero/libero_goal/put_the_bowl_on_the_plate.bddl`` ->
    ``put_the_bowl_on_the_plate``)."""
    row = split_goal_row_source(task)
    return Path(row[1] if row is not None else task).stem


def task_labels(tasks: Iterable[str]) -> dict[str, str]:
    """Each goal task's label, unique among ``tasks`` and without a ``/``: its
    :func:`task_label`, and where two files share a stem (VLA-Arena's levels) as many of
    their folders before it as tell them apart, joined by ``.``
    (``level_0.pick_up_the_apple_and_put_it_on_the_bowl``)."""
    parts = {t: Path((split_goal_row_source(t) or ("", t))[1]).with_suffix("").parts for t in tasks}
    labels: dict[str, str] = {}
    for task, mine in parts.items():
        depth = 1
        while depth < len(mine) and any(
            other[-depth:] == mine[-depth:] for t, other in parts.items() if t != task
        ):
            depth += 1
        labels[task] = ".".join(mine[-depth:])
    return labels


def _rate(group: str, policy: str, records: list[EpisodeRecord]) -> GoalRate:
    rs = [r for r in records if not r.is_error]
    costs = [r.cost for r in rs if r.cost is not None]
    return GoalRate(
        group=group,
        policy=policy,
        tiers="/".join(sorted({str(r.tier) for r in rs})),
        files=len({r.suite for r in records}),
        successes=sum(r.success for r in rs),
        episodes=len(rs),
        cost=sum(costs) / len(costs) if costs else None,
        errors=len(records) - len(rs),
    )


#: What :func:`goal_rates` groups by.
GOAL_GROUPS = ("task", "suite", "source_suite")


def goal_rates(records: Iterable[EpisodeRecord], *, by: str = "task") -> list[GoalRate]:
    """Per (task file, policy) (``by="task"``) or (suite, policy) (``by="suite"``), in
    order of first appearance; or per (LIBERO / VLA-Arena suite, policy)
    (``by="source_suite"``, :func:`source_suite_of`), in the sources' order
    (:data:`SOURCE_SUITE_ORDER`), the records of a user's own files left out.

    Raises:
        EvalError: for records of different object sources; for ``by`` not one of
            :data:`GOAL_GROUPS`.
    """
    if by not in GOAL_GROUPS:
        raise EvalError(f"goal rates by {by!r}; valid choices: {', '.join(GOAL_GROUPS)}")
    goal = [r for r in records if r.is_goal]
    check_one_source(goal)
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for r in goal:
        if by == "source_suite":
            key = source_suite_of(r.suite)
            if key is None:
                continue
        else:
            key = Path(r.suite).name if by == "task" else suite_of(r.suite)
        groups.setdefault((key, policy_label(r)), []).append(r)
    keys = list(groups)
    if by == "source_suite":
        keys.sort(key=lambda k: SOURCE_SUITE_ORDER.index(k[0]))  # stable: policies in order
    return [_rate(group, policy, groups[(group, policy)]) for group, policy in keys]


def policy_label(record: EpisodeRecord) -> str:
    """A goal rate's policy: the record's, with its instruction ablation when there is
    one (``expert [blank]``: never pooled with the original instruction's episodes)."""
    if record.variant == "original":
        return record.policy
    return f"{record.policy} [{record.variant}]"


def goal_summary(records: Iterable[EpisodeRecord]) -> str:
    """Markdown: success per task file and policy, then per suite and policy (when the
    records span more than one file), and the label's note.

    Raises:
        EvalError: for records of different object sources.
    """
    records = list(records)
    rows = ["| task | tier | policy | success | rate % [95% CI] | cost/episode |", "|---" * 6 + "|"]
    for rate in goal_rates(records, by="task"):
        rows.append("| " + " | ".join([rate.group, rate.tiers, rate.policy, *rate.cells()]) + " |")
    suites = goal_rates(records, by="suite")
    if any(rate.files > 1 for rate in suites):
        rows += ["", "| suite | files | policy | success | rate % [95% CI] | cost/episode |"]
        rows.append("|---" * 6 + "|")
        for rate in suites:
            cells = [rate.group, str(rate.files), rate.policy, *rate.cells()]
            rows.append("| " + " | ".join(cells) + " |")
    named = goal_rates(records, by="source_suite")
    if len({rate.group for rate in named}) > 1:  # a run over several LIBERO / VLA-Arena suites
        rows += ["", "| source suite | files | tiers | policy | success | rate % [95% CI] |"
                 " cost/episode |", "|---" * 7 + "|"]  # fmt: skip
        for rate in named:
            cells = [rate.group, str(rate.files), rate.tiers, rate.policy, *rate.cells()]
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + f"\n{LABEL_NOTE}"


#: The header rows of :func:`goal_tables`.
TASK_HEADER = ["task", "tier", "policy", "success", "rate % [95% CI]", "cost/episode", "errors"]
SUITE_HEADER = ["suite", "files", "policy", "success", "rate % [95% CI]", "cost/episode", "errors"]
SOURCE_SUITE_HEADER = ["source suite", "files", "tiers", *SUITE_HEADER[2:]]


def goal_tables(
    records: Iterable[EpisodeRecord], max_error_rate: float | None = None
) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """The report's three goal tables (header row first, every cell a string): per task
    file, per suite and per LIBERO / VLA-Arena suite (``by="source_suite"``: only its header
    when no record is of a shipped file), one row per policy (its label), with the error
    episodes; a row whose share of errors exceeds ``max_error_rate`` is withheld (its rate
    cells say so).

    Raises:
        EvalError: for records of different object sources.
    """
    records = list(records)
    out = []
    for by, header in (
        ("task", TASK_HEADER), ("suite", SUITE_HEADER), ("source_suite", SOURCE_SUITE_HEADER)
    ):  # fmt: skip
        rows = [list(header)]
        for rate in goal_rates(records, by=by):
            first = {
                "task": [rate.group, rate.tiers],
                "suite": [rate.group, str(rate.files)],
                "source_suite": [rate.group, str(rate.files), rate.tiers],
            }[by]
            cells = rate.cells() if not rate.withheld(max_error_rate) else ["withheld"] * 3
            rows.append([*first, rate.policy, *cells, str(rate.errors)])
        out.append(rows)
    return out[0], out[1], out[2]
