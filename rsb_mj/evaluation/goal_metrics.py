"""Goal tasks' results: success rates with Wilson intervals per task and per suite.

Over the scored records of goal tasks (:attr:`EpisodeRecord.is_goal`; error records left
out, as in every metric), per (task file, policy) and per (suite, policy): successes of
episodes, the rate with its Wilson 95% interval (:func:`rsb_mj.evaluation.metrics.wilson`)
and, where the task has a ``:cost``, the mean cumulative cost per episode. A record's suite
is the shipped goal suite whose folder holds its file (``libero-layouts``, ``vla-arena``),
else ``files`` (a user's own files). Results are labelled
:data:`~rsb_mj.suites.GOAL_LABEL`: another robot, a
mapped table frame and stand-in objects, not comparable with published numbers.

Records of different object sources (the stand-ins, an asset folder's originals) are never
pooled: :func:`check_one_source` refuses them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.metrics import wilson
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import GOAL_LABEL, GOAL_SUITES
from rsb_mj.tables.episode_source import split_goal_row_source

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
    ``libero-layouts``, ``vla-arena``; of a goal row source, its suite), else
    :data:`USER_FILES`."""
    row = split_goal_row_source(task)
    if row is not None:
        return row[0]
    path = Path(task).resolve()
    for suite in GOAL_SUITES.values():
        if suite.pattern == "*" and path.is_relative_to((tasks_dir() / suite.folder).resolve()):
            return suite.name
    return USER_FILES


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


def goal_rates(records: Iterable[EpisodeRecord], *, by: str = "task") -> list[GoalRate]:
    """Per (task file, policy) (``by="task"``) or (suite, policy) (``by="suite"``), in
    order of first appearance.

    Raises:
        EvalError: for records of different object sources; for ``by`` not one of the two.
    """
    if by not in ("task", "suite"):
        raise EvalError(f"goal rates by {by!r}; valid choices: task, suite")
    goal = [r for r in records if r.is_goal]
    check_one_source(goal)
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for r in goal:
        key = Path(r.suite).name if by == "task" else suite_of(r.suite)
        groups.setdefault((key, policy_label(r)), []).append(r)
    return [_rate(group, policy, rs) for (group, policy), rs in groups.items()]


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
    return "\n".join(rows) + f"\n{LABEL_NOTE}"


#: The header rows of :func:`goal_tables`.
TASK_HEADER = ["task", "tier", "policy", "success", "rate % [95% CI]", "cost/episode", "errors"]
SUITE_HEADER = ["suite", "files", "policy", "success", "rate % [95% CI]", "cost/episode", "errors"]


def goal_tables(
    records: Iterable[EpisodeRecord], max_error_rate: float | None = None
) -> tuple[list[list[str]], list[list[str]]]:
    """The report's two goal tables (header row first, every cell a string): per task file
    and per suite, one row per policy (its label), with the error episodes; a row whose
    share of errors exceeds ``max_error_rate`` is withheld (its rate cells say so).

    Raises:
        EvalError: for records of different object sources.
    """
    records = list(records)
    out = []
    for by, header in (("task", TASK_HEADER), ("suite", SUITE_HEADER)):
        rows = [list(header)]
        for rate in goal_rates(records, by=by):
            first = [rate.group, rate.tiers] if by == "task" else [rate.group, str(rate.files)]
            cells = rate.cells() if not rate.withheld(max_error_rate) else ["withheld"] * 3
            rows.append([*first, rate.policy, *cells, str(rate.errors)])
        out.append(rows)
    return out[0], out[1]
