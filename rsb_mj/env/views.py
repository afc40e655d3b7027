"""What a policy is handed at ``reset``: views of the environment, never the answer.

The evaluation runner never gives a policy the environment itself (its ``episode`` holds the
correct option). Instead ``Policy.reset(env, obs, info)`` receives one of:

* :class:`PolicyEnv` (every policy by default): the spaces, the candidate names, the control
  rate and the instruction. Nothing in it holds or determines the answer (no episode, no
  seed, no question id, no table index).
* :class:`SimView` (built-in scripted policies that declare ``simulator = True``): read
  access to the compiled scene and the live ``MjData`` for motion planning, plus a seed
  derived from the episode seed and the policy name (so it cannot be used to redraw the
  episode). Still no answer.
* :class:`SimView` with ``answer`` set (policies that declare ``privileged = True``, the
  built-in expert): the one explicit channel to the correct candidate. Runs of such
  policies are marked ``privileged: true`` in every record and report.
* :class:`GoalView` (simulator policies on a goal task, :class:`rsb_mj.env.rsb_env.RsbEnv`):
  the goal scene, its task (the goal's relations: what the goal expert carries out) and the
  live ``MjData``. A goal task has no hidden answer: its goal is the task.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import mujoco

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.task import Task
from rsb_mj.scene.compiler import Scene


@dataclass(frozen=True)
class PolicyEnv:
    """The public face of an environment, as a learned policy may see it.

    Attributes:
        action_space, observation_space: the gymnasium spaces.
        candidates: candidate object names, in the order of every per-candidate axis.
        control_hz: control rate [Hz] (one ``act`` row per control step).
        instruction: the instruction of this episode.
    """

    action_space: Any
    observation_space: Any
    candidates: tuple[str, ...]
    control_hz: float
    instruction: str

    @property
    def unwrapped(self) -> PolicyEnv:
        """This view (there is nothing beneath it for a policy)."""
        return self


def policy_seed(episode_seed: int, policy_name: str) -> int:
    """A per-(episode, policy) seed that does not reveal the episode seed (sha256, 63 bits)."""
    digest = hashlib.sha256(f"{int(episode_seed)}/{policy_name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class SimView:
    """Simulator access for built-in scripted policies (motion planning), see the module doc.

    Attributes:
        model, data: the environment's compiled model and live data (read them; do not
            write: the runner steps the simulation).
        scene: the compiled scene (names, ids, zone, table height).
        candidates: candidate names (the signals' N axis).
        control_hz: control rate [Hz].
        instruction: the instruction of this episode.
        seed: the policy's own seed for this episode (see :func:`policy_seed`).
        letters: candidate -> the option letter it shows (what the images and the instruction
            say anyway; not the answer).
        start_hold: object -> the arm holding it since reset (``(Grasped OBJECT GRIPPER)`` in
            ``:init``; empty with ``start_held=False`` or when the hands start empty).
    """

    model: mujoco.MjModel
    data: mujoco.MjData
    scene: Scene
    candidates: tuple[str, ...]
    control_hz: float
    instruction: str
    seed: int
    letters: dict[str, str]
    start_hold: dict[str, str] = field(default_factory=dict)
    _answer: str | None = field(default=None, repr=False)

    @property
    def unwrapped(self) -> SimView:
        """This view (``world_of`` and the expert read ``env.unwrapped``)."""
        return self

    @property
    def task(self) -> Problem:
        """The task (the compiled scene's): what a scripted policy reads the placements of
        (:func:`rsb_mj.expert.placements.placements`), as of a :class:`GoalView`'s."""
        return self.scene.problem

    @property
    def answer(self) -> str:
        """The correct candidate: only for policies that declare ``privileged = True``.

        Raises:
            EvalError: for a policy that is not privileged.
        """
        if self._answer is None:
            raise EvalError(
                "the answer is only handed to privileged policies (privileged = True); "
                "their runs are marked privileged in records and reports"
            )
        return self._answer


@dataclass(frozen=True)
class GoalView:
    """What a simulator policy (``simulator = True``) is handed at reset on a goal task.

    Attributes:
        model, data: the compiled model and the live data (read only: the runner steps).
        scene: the compiled goal scene (its layout sampler: ``scene.layout``).
        task: the goal task (its ``goal`` relations, objects, fixtures, ``:cost``).
        candidates: the task's object names.
        control_hz: control rate [Hz].
        instruction: the task's ``:language``.
        seed: the episode's seed (the layout's; the goal expert's generator).
    """

    model: mujoco.MjModel
    data: mujoco.MjData
    scene: Scene
    task: Task
    candidates: tuple[str, ...]
    control_hz: float
    instruction: str
    seed: int

    @property
    def unwrapped(self) -> GoalView:
        """This view (the expert reads ``env.unwrapped``)."""
        return self
