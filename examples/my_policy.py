"""A minimal rsb_mj policy: copy this file and put your model in ``act``.

Evaluate it with the file form of ``--policy`` (from the repository root; from any other
folder give the path to this file instead)::

    rsb eval --suite RSB-Math-4 --policy examples/my_policy.py:make --episodes 2 \
        --out runs/my_policy
    rsb report runs/my_policy --html

``rsb eval`` loads this file in a *policy process* of its own (a fresh Python interpreter)
with the file's folder first on the Python path, so it may import its neighbours; no
``PYTHONPATH`` is needed. ``make()`` is the factory the spec names after the colon. The
policy process hands the policy only what a real robot would have: the observation, the
instruction, the action and observation spaces, the candidate names and the control rate,
never the answer. Whatever the policy does wrong (raising, even exiting, a bad action, a
hang) ends only its own episode, as a scored failure (``termination: "policy_fault"``,
counted in the ``faults`` column), and the run goes on.

As written, the policy holds the arms where they start with both grippers open and says it
is done after two seconds, so each episode ends quickly without a grasp (``no grasp
detected``): a template, not a solution.
"""

from __future__ import annotations

import numpy as np

#: Control steps before the policy reports ``done`` (20 Hz: 2 s).
STEPS = 40


class MyPolicy:
    """Holds the start pose with the grippers open, then reports ``done``.

    Attributes:
        cameras: the cameras ``act`` reads (``"head"``, ``"left_wrist"``,
            ``"right_wrist"``); ``()`` renders none, which is much faster.
        text: a rationale written with the last action (recorded with the episode; ``None``
            for none). A policy that names an option here ("the answer is B") gets the
            reasoning-following rate of Table 5.
    """

    cameras = ("head",)

    def __init__(self) -> None:
        self.text: str | None = None
        self.instruction = ""
        self.hold = np.zeros(14)
        self.steps = 0

    def reset(self, env, obs, info) -> None:
        """Start an episode.

        Args:
            env: the policy's view of the environment: ``env.action_space`` (14 joint
                positions), ``env.instruction``, ``env.candidates``, ``env.control_hz``.
            obs: the first observation: ``obs["state"]`` (14,) joint positions
                ``[left 6 (rad), left gripper, right 6 (rad), right gripper]``, grippers 0
                closed .. 1 open; ``obs["images"][camera]`` (240, 320, 3) uint8 RGB, upright.
            info: ``info["instruction"]`` (the question, its options and which candidate
                stands for which option), ``info["candidates"]``, ``info["step"]``.
        """
        self.instruction = str(info["instruction"])
        self.hold = np.asarray(obs["state"], dtype=np.float64).copy()
        self.steps = 0
        self.text = None

    def act(self, obs) -> np.ndarray:
        """The next action: (14,) joint position targets (or an (H, 14) chunk run in turn)."""
        image = obs["images"]["head"]  # your model reads this and self.instruction
        assert image.shape == (240, 320, 3)
        self.steps += 1
        action = self.hold.copy()
        action[6] = action[13] = 1.0  # both grippers open
        return action

    @property
    def done(self) -> bool:
        """True once the policy gives up or has finished (the episode then ends)."""
        return self.steps >= STEPS


def make() -> MyPolicy:
    """The factory ``--policy examples/my_policy.py:make`` calls, once per policy process."""
    return MyPolicy()
