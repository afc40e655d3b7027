"""Suite metrics from episode records: GSR, TSR, nSG with Wilson 95% intervals.

* GSR: fraction of episodes with a grasp of any candidate (RSB Appendix C).
* TSR: fraction of episodes whose correct candidate was grasped and placed in the answer
  zone, released (success is a subset of grasp, see :mod:`rsb_mj.scoring.scorer`).
* nSG = (TSR/GSR - 1/N) / (1 - 1/N), only when GSR > 0. TSR/GSR is the success rate among
  grasping episodes, so its interval is the Wilson interval of successes out of grasps,
  mapped through the same affine map.
* correct-grasp rate: among grasping episodes, those whose *first* grasp was the correct
  candidate (the policy's choice, before any placement failure).
* chance margin (Act2Answer, Appendix E): Delta = z * sqrt(p0 (1 - p0) / n) around the
  chance rate p0 = 1/N; for binary suites exactly 1.96 * sqrt(0.25 / n) around 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rsb_mj.episode import LETTERS
from rsb_mj.evaluation.records import EpisodeRecord

#: Two-sided 95% normal quantile.
Z95 = 1.96


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of k successes out of n trials; ``(0, 1)`` when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


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
class SuiteMetrics:
    """Metrics of one policy on one suite.

    Attributes:
        suite, policy: names; choices: N.
        episodes: episodes scored; errors: episodes that ended in an error (counted as
            failures: neither grasp nor success).
        gsr, tsr: rates over all episodes.
        selection: successes among grasping episodes (TSR/GSR), the basis of nSG.
        correct_grasp: first grasp on the correct candidate, among grasping episodes.
    """

    suite: str
    policy: str
    choices: int
    episodes: int
    errors: int
    gsr: Rate
    tsr: Rate
    selection: Rate
    correct_grasp: Rate

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
        lo, hi = self.selection.interval
        return ((lo - chance) / (1 - chance), (hi - chance) / (1 - chance))

    @property
    def chance_margin(self) -> float:
        """Act2Answer's Delta for the selection rate (over grasping episodes)."""
        return chance_margin(self.selection.n, self.choices)

    @property
    def chance_verdict(self) -> str:
        """Selection rate above, within or below chance +- Delta ("n/a" without grasps)."""
        if self.selection.n == 0:
            return "n/a"
        return chance_verdict(self.selection.value, self.selection.n, self.choices)


def suite_metrics(records: Sequence[EpisodeRecord]) -> SuiteMetrics:
    """Metrics of records that share one suite and policy."""
    first = records[0]
    grasps = sum(r.grasped for r in records)
    wins = sum(r.success for r in records)
    correct = sum(r.grasped and r.choice == r.target for r in records)
    return SuiteMetrics(
        suite=first.suite,
        policy=first.policy,
        choices=first.choices,
        episodes=len(records),
        errors=sum(r.termination == "error" for r in records),
        gsr=Rate(grasps, len(records)),
        tsr=Rate(wins, len(records)),
        selection=Rate(wins, grasps),
        correct_grasp=Rate(correct, grasps),
    )


def summarize(records: Iterable[EpisodeRecord]) -> list[SuiteMetrics]:
    """Metrics per (policy, suite), in order of first appearance."""
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for rec in records:
        groups.setdefault((rec.policy, rec.suite), []).append(rec)
    return [suite_metrics(g) for g in groups.values()]


def confusion(records: Iterable[EpisodeRecord], choices: int) -> list[list[int]]:
    """Counts of chosen option (columns: letters, then "none") per correct option (rows).

    The chosen option is the letter of the first candidate grasped; "none" when no
    candidate was grasped.
    """
    letters = LETTERS[choices]
    matrix = [[0] * (len(letters) + 1) for _ in letters]
    for rec in records:
        if rec.choices != choices:
            continue
        col = letters.index(rec.chosen_option) if rec.chosen_option else len(letters)
        matrix[letters.index(rec.correct)][col] += 1
    return matrix
