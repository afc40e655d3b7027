"""The six RSB suites: which task file, question source and choice count each uses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rsb_mj.errors import RsbError
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.resources import tasks_dir

__all__ = ["CONTROL_HZ", "SUITES", "Suite", "get_suite"]


@dataclass(frozen=True)
class Suite:
    """A named benchmark suite.

    Attributes:
        name: e.g. ``"RSB-Math-4"``.
        task_file: file name in ``tasks/``.
        source: question source id (``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu``).
        choices: 4 or 10.
        max_steps: control steps before the episode is truncated (at ``CONTROL_HZ``).
    """

    name: str
    task_file: str
    source: str
    choices: int
    max_steps: int = 400

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


def get_suite(name: str) -> Suite:
    """The suite called ``name`` (case-insensitive; a trailing ``-v0`` is accepted).

    Raises:
        RsbError: for an unknown name, listing the valid ones.
    """
    key = name.removeprefix("rsb_mj/").removesuffix("-v0")
    for suite in SUITES.values():
        if suite.name.lower() == key.lower():
            return suite
    raise RsbError(f"unknown suite {name!r}; valid choices: {', '.join(SUITES)}")
