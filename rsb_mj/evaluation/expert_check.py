"""Measure the expert's success: ``rsb expert-check SUITE ... -n 200``.

This is ``rsb eval --policy expert`` (:func:`rsb_mj.evaluation.run_eval`: the same episode
lookup, rollout loop, policy seeds, process pool and records) over rows ``start .. start +
n - 1`` of each source's split (no seed is skipped), summarized per source: TSR, GSR, step use
and every failure with its reason (the records' ``failure_reason``). The issue's bar: TSR >=
99% and GSR = 100% on 200 rows of every suite, each episode within the suite's step limit.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import is_task_file, label

#: Required expert success rates.
MIN_TSR, MIN_GSR = 0.99, 1.0
#: The policy spec checked.
EXPERT = "expert"


@dataclass
class SuiteCheck:
    """The expert's figures on one suite (or task file).

    Attributes:
        suite: display name (suite name or task file name).
        n, success, grasped: episodes, TSR and GSR counts (an error record counts as failed).
        max_steps_used: most control steps of one episode; step_limit: the limit in force.
        sim_s: simulated seconds of all episodes; wall_s: their wall-clock seconds.
        failures: records of the episodes that missed success or a grasp.
    """

    suite: str
    n: int = 0
    success: int = 0
    grasped: int = 0
    max_steps_used: int = 0
    step_limit: int = 0
    sim_s: float = 0.0
    wall_s: float = 0.0
    failures: list[EpisodeRecord] = field(default_factory=list)

    @property
    def tsr(self) -> float:
        """Fraction of rows where the target ended released in the zone."""
        return self.success / self.n if self.n else 0.0

    @property
    def gsr(self) -> float:
        """Fraction of rows where a candidate was grasped."""
        return self.grasped / self.n if self.n else 0.0

    @property
    def passed(self) -> bool:
        """Meets the bar (TSR >= 99%, GSR = 100%, all within the step limit)."""
        within = self.step_limit == 0 or self.max_steps_used <= self.step_limit
        return self.tsr >= MIN_TSR and self.gsr >= MIN_GSR and within

    def add(self, record: EpisodeRecord) -> None:
        """Count one episode's record."""
        self.n += 1
        self.success += record.success
        self.grasped += record.grasped
        self.max_steps_used = max(self.max_steps_used, record.steps)
        self.step_limit = record.max_steps
        if record.steps:
            self.sim_s += record.steps / float(record.sim["control_hz"])
        self.wall_s += record.wall_s
        if not record.success or not record.grasped:
            self.failures.append(record)

    def line(self) -> str:
        """One summary line."""
        return (
            f"{self.suite}: expert TSR {self.success}/{self.n} = {100 * self.tsr:.1f}%  "
            f"GSR {self.grasped}/{self.n} = {100 * self.gsr:.1f}%  "
            f"steps max {self.max_steps_used}/{self.step_limit}  "
            f"sim/wall {self.sim_s:.0f} s/{self.wall_s:.0f} s  "
            f"{'PASS' if self.passed else 'FAIL'}"
        )

    def failure_lines(self) -> list[str]:
        """One line per failed row, in row order: ``  SUITE row I (seed S): reason``."""
        return [
            f"  {self.suite} row {r.index} (seed {r.seed}): {r.failure_reason}"
            for r in sorted(self.failures, key=lambda r: r.index)
        ]


def check_suites(
    suites: list[str],
    *,
    split: str = "eval",
    n: int = 200,
    start: int = 0,
    jobs: int = 1,
    progress: bool = True,
    out: Path | None = None,
    on_records: Callable[[list[EpisodeRecord]], None] | None = None,
) -> list[SuiteCheck]:
    """Run the expert on ``n`` rows of each source and collect the figures.

    Args:
        suites: suite names or task file paths (``.bddl``).
        split: ``"eval"`` or ``"train"``.
        n: rows per source.
        start: first row.
        jobs: worker processes.
        progress: show progress on stderr (a bar on a terminal, else log lines:
            :mod:`rsb_mj.progress`).
        out: the run directory to keep (resumable, ``rsb report`` reads it); None runs in a
            temporary one.
        on_records: called with the records written so far (in plan order), also when the
            run stops with an error (e.g. to log them).

    Raises:
        EvalError: rows outside a frozen table, an unknown suite; InfraError, WriteError as
            :func:`~rsb_mj.evaluation.runner.run_eval`.
    """
    names = [s if is_task_file(s) else get_suite(s).name for s in suites]
    with tempfile.TemporaryDirectory(prefix="rsb-expert-check-") as tmp:
        folder = Path(out) if out is not None else Path(tmp)
        config = EvalConfig(
            suites=tuple(names),
            policies=(EXPERT,),
            episodes=n,
            out=folder,
            split=split,
            start=start,
            workers=jobs,
            progress=progress,
        )
        records: list[EpisodeRecord] = []
        try:
            records = run_eval(config)
        finally:
            if on_records is not None:
                on_records(records or _written(folder, names))
    checks = {name: SuiteCheck(label(name)) for name in names}
    for record in records:
        checks[record.suite].add(record)
    return list(checks.values())


def _written(folder: Path, names: list[str]) -> list[EpisodeRecord]:
    """Records a stopped run left, in source then row order."""
    order = {name: i for i, name in enumerate(names)}
    found = [r for r in RunFolder(folder).records() if r.suite in order]
    return sorted(found, key=lambda r: (order[r.suite], r.index))
