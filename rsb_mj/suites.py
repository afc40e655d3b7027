"""The suites: which task file, question source and choice count each uses.

:data:`SUITES` holds the six RSB suites (``--suite all``); :data:`A2A_SUITES` the twelve
Act2Answer suites ``A2A-<Category>`` (``--suite a2a``), one per knowledge category of
:data:`rsb_mj.lang.a2a.A2A_SOURCES`. :func:`get_suite` knows both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rsb_mj.errors import RsbError
from rsb_mj.lang.a2a import A2A_SOURCES
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.resources import tasks_dir

__all__ = ["CONTROL_HZ", "SUITES", "Suite", "get_suite"]


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
        family: ``"rsb"`` or ``"a2a"`` (Act2Answer: :mod:`rsb_mj.a2a`).
    """

    name: str
    task_file: str
    source: str
    choices: int
    max_steps: int = 400
    family: str = "rsb"

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
#: Group names a suite argument may use: ``all`` (the six RSB suites), ``a2a``.
SUITE_GROUPS: dict[str, dict[str, Suite]] = {"all": SUITES, "a2a": A2A_SUITES}


def expand_suites(names: list[str]) -> list[str]:
    """Suite names with the groups ``all`` and ``a2a`` expanded (other names kept)."""
    out: list[str] = []
    for name in names:
        out += list(SUITE_GROUPS.get(name.lower(), {name: None}))
    return out


def is_a2a_suite(name: str) -> bool:
    """True for an Act2Answer suite name (``A2A-Color``, case-insensitive)."""
    key = name.removeprefix("rsb_mj/").removesuffix("-v0").lower()
    return any(s.lower() == key for s in A2A_SUITES)


def get_suite(name: str) -> Suite:
    """The suite called ``name`` (case-insensitive; a trailing ``-v0`` is accepted).

    Raises:
        RsbError: for an unknown name, listing the valid ones.
    """
    key = name.removeprefix("rsb_mj/").removesuffix("-v0")
    for suite in (*SUITES.values(), *A2A_SUITES.values()):
        if suite.name.lower() == key.lower():
            return suite
    raise RsbError(f"unknown suite {name!r}; valid choices: {', '.join([*SUITES, *A2A_SUITES])}")
