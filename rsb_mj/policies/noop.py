"""``noop``: hold the initial joint positions (GSR 0: the floor of every table)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rsb_mj.policies.base import Policy


class NoopPolicy(Policy):
    """Commands the state observed at reset, every step."""

    name = "noop"

    def __init__(self) -> None:
        self._hold = np.zeros(14)

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Remember the joint positions at reset."""
        self._hold = np.asarray(obs["state"], dtype=np.float64).copy()

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The joint positions of reset."""
        return self._hold.copy()
