"""What an evaluation run consists of: one job per (suite, episode index, policy)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Job:
    """One episode of one policy.

    Attributes:
        suite: suite name, e.g. ``"RSB-Math-4"``.
        split: ``"eval"`` (frozen eval table) or ``"train"``.
        index: row of the suite's episode table.
        policy: policy spec (see :mod:`rsb_mj.policies.spec`).
        max_steps: control-step limit.
        video: path of an mp4 of the head camera to write, or ``""`` for none.
    """

    suite: str
    split: str
    index: int
    policy: str
    max_steps: int
    video: str = ""

    @property
    def key(self) -> tuple[str, str, int, str]:
        """The record key this job produces (see ``EpisodeRecord.key``)."""
        return (self.suite, self.split, self.index, self.policy)
