"""Hand-written environment signals for scoring tests (the shapes of contract 5)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from rsb_mj.scoring.signals import StepSignals


def _make(s: int = 25, n: int = 4, *, cmd: float = 1.0) -> dict[str, np.ndarray]:
    return {
        "contact": np.zeros((s, n, 2), dtype=bool),
        "pinch": np.zeros((s, n, 2), dtype=bool),
        "table_contact": np.ones((s, n), dtype=bool),
        "gripper_cmd": np.full((s, 2), cmd),
        "gripper_open": np.full((s, 2), cmd),
        "lift": np.zeros((s, n)),
        "in_zone": np.zeros((s, n), dtype=bool),
    }


@pytest.fixture
def make_signals() -> Callable[..., dict[str, np.ndarray]]:
    """``make_signals(s, n, cmd=...)``: quiet signals (every candidate resting on the table,
    no finger contact, nothing lifted or in zone; measured openings equal to ``cmd``)."""
    return _make


@pytest.fixture
def wrap() -> Callable[[dict[str, np.ndarray]], StepSignals]:
    """``wrap(d)``: validate a signal dict into :class:`StepSignals`."""
    return lambda d: StepSignals.from_info(d, d["lift"].shape[1])
