"""Measure the expert's success: ``rsb expert-check SUITE ... -n 200``.

Runs the expert on rows ``start .. start + n - 1`` of each suite's split (no seed is
skipped), scores them as the benchmark does, and reports TSR, GSR, step use and every
failure with its reason. The issue's bar: TSR >= 99% and GSR = 100% on 200 rows of every
suite, each episode within the suite's step limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rsb_mj.expert.episodes import episode_for, label, load_problem, make_env, source_name
from rsb_mj.expert.parallel import run_jobs
from rsb_mj.expert.rollout import run_expert

#: Required expert success rates.
MIN_TSR, MIN_GSR = 0.99, 1.0


@dataclass(frozen=True)
class CheckJob:
    """One episode to check."""

    suite: str
    split: str
    index: int


_ENVS: dict[str, Any] = {}


def check_one(job: CheckJob) -> dict[str, Any]:
    """Run and score the expert on one row; returns the run summary."""
    if job.suite not in _ENVS:
        _ENVS[job.suite] = make_env(job.suite, cameras=())
    episode = episode_for(job.suite, job.split, job.index)
    run = run_expert(_ENVS[job.suite], episode, load_problem(job.suite))
    out = run.summary()
    out["max_steps"] = run.max_steps
    out["source"] = job.suite
    return out


@dataclass
class SuiteCheck:
    """The expert's figures on one suite."""

    suite: str
    n: int = 0
    success: int = 0
    grasped: int = 0
    max_steps_used: int = 0
    step_limit: int = 0
    sim_s: float = 0.0
    wall_s: float = 0.0
    failures: list[dict[str, Any]] = field(default_factory=list)

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

    def line(self) -> str:
        """One summary line."""
        return (
            f"{self.suite}: expert TSR {self.success}/{self.n} = {100 * self.tsr:.1f}%  "
            f"GSR {self.grasped}/{self.n} = {100 * self.gsr:.1f}%  "
            f"steps max {self.max_steps_used}/{self.step_limit}  "
            f"sim/wall {self.sim_s:.0f} s/{self.wall_s:.0f} s  "
            f"{'PASS' if self.passed else 'FAIL'}"
        )


def check_suites(
    suites: list[str],
    *,
    split: str = "eval",
    n: int = 200,
    start: int = 0,
    jobs: int = 1,
    progress: bool = True,
    on_result: Any = None,
) -> list[SuiteCheck]:
    """Run the expert on ``n`` rows of each suite and collect the figures.

    Args:
        suites: suite names or task file paths (``.bddl``).
        split: ``"eval"`` or ``"train"``.
        n: rows per suite.
        start: first row.
        jobs: worker processes.
        progress: show a progress bar.
        on_result: called with each run summary (e.g. to log it), in completion order.
    """
    names = [source_name(s) for s in suites]
    checks = {s: SuiteCheck(label(s)) for s in names}
    work = [CheckJob(s, split, i) for s in names for i in range(start, start + n)]
    for res in run_jobs(check_one, work, jobs=jobs, desc="expert-check", progress=progress):
        c = checks[res["source"]]
        c.n += 1
        c.success += bool(res["success"])
        c.grasped += bool(res["grasped"])
        c.max_steps_used = max(c.max_steps_used, int(res["steps"]))
        c.step_limit = int(res["max_steps"])
        c.sim_s += 0.05 * int(res["steps"])
        c.wall_s += float(res["wall_s"])
        if not res["success"] or not res["grasped"]:
            c.failures.append(res)
        if on_result is not None:
            on_result(res)
    return list(checks.values())
