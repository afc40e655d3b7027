"""``random``: uniformly random joint targets, each held for a second (the chance floor of
any task, question or goal).

At reset it keeps the joint state observed (the 14-D layout: per arm six joint angles
[rad], then the gripper opening, 0 closed .. 1 open); every :data:`HOLD_S` seconds of control
it draws a new target: each arm joint within :data:`SPREAD` rad of its reset angle, each
gripper uniformly in [0, 1]. Its generator is seeded by the episode (``policy_rng``: same
episode, same actions, in any worker), which is why it reads the simulator view: for the
seed and the control rate only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rsb_mj.policies.base import Policy, policy_rng

__all__ = ["GRIPPERS", "HOLD_S", "SPREAD", "RandomPolicy"]

#: Seconds each drawn target is held.
HOLD_S = 1.0
#: Largest offset [rad] of a drawn arm-joint target from its reset angle.
SPREAD = 0.3
#: Indices of the two grippers in the 14-D action (left, right).
GRIPPERS = (6, 13)


class RandomPolicy(Policy):
    """Uniformly random joint targets around the reset pose, a new one every second."""

    name = "random"
    simulator = True  # the episode's seed and control rate (no other simulator state)

    def __init__(self) -> None:
        self._home = np.zeros(14)
        self._target = np.zeros(14)
        self._rng = np.random.default_rng(0)
        self._hold = 1
        self._step = 0

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Keep the reset pose; seed the draws from the episode (``env`` is the view)."""
        self._home = np.asarray(obs["state"], dtype=np.float64).copy()
        self._rng = policy_rng(env)
        self._hold = max(1, round(float(env.control_hz) * HOLD_S))
        self._step = 0

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The current target; a new draw every :data:`HOLD_S` seconds."""
        if self._step % self._hold == 0:
            target = self._home + self._rng.uniform(-SPREAD, SPREAD, 14)
            target[list(GRIPPERS)] = self._rng.uniform(0.0, 1.0, len(GRIPPERS))
            self._target = target
        self._step += 1
        return self._target.copy()
