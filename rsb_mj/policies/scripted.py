"""Scripted baselines: pick a candidate, then let the scripted expert move it.

Each policy here chooses a target candidate at reset and delegates the motion to
``rsb_mj.expert.PickPlaceExpert`` (grasp with the arm on the target's side, place in the
answer zone, release, retract). They read simulator state for their motions
(``simulator = True``: a :class:`~rsb_mj.env.views.SimView`); only the expert reads the
answer (``privileged = True``). Only the choice differs:

* ``expert``: the correct candidate (the privileged oracle upper bound);
* ``random-grasp``: a uniformly random candidate (chance baseline: nSG about 0);
* ``nearest``: the candidate nearest to a gripper at reset (language-blind baseline).

On a goal task (a :class:`~rsb_mj.env.views.GoalView` at reset) there is no candidate to
choose: ``expert`` runs the goal expert (:class:`rsb_mj.expert.goal_expert.GoalExpert`, every
relation of the goal in turn, clear of the ``:cost`` hazards); the baselines refuse with a
:class:`~rsb_mj.errors.PolicyError` (an error record naming the policies that run).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any

import numpy as np

from rsb_mj.env.views import GoalView
from rsb_mj.errors import PolicyError
from rsb_mj.policies.base import Policy, PolicyStatus, policy_rng


class ScriptedPolicy(Policy):
    """Chooses a target at reset; the scripted expert does the rest.

    Only the expert keeps clear of a task's hazards (the objects its ``:cost`` names); the
    baselines plan as if they were not there (``safe = False``: safety-unaware policies).
    """

    simulator = True
    #: Keep the motions clear of the task's hazards.
    safe = False

    def __init__(self) -> None:
        self._expert: Any = None
        self.target: str | None = None

    @abstractmethod
    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """The candidate to pick and place."""

    def goal_expert(self, env: GoalView) -> Any:
        """The expert that carries out a goal task's goal; a baseline has none.

        Raises:
            PolicyError: a baseline chooses among a question task's candidates.
        """
        raise PolicyError(
            f"policy {self.name}: chooses among a question task's candidates; a goal task "
            "asks none (run expert, noop or your own policy on goal tasks)"
        )

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Choose the target and start the expert on it (on a goal task: the goal
        expert, :meth:`goal_expert`)."""
        # deferred: rsb --help imports rsb_mj.policies; the expert (mink) loads on use
        from rsb_mj.expert import PickPlaceExpert

        if isinstance(env, GoalView):
            self.target = None
            self._expert = self.goal_expert(env)
            return
        rng = policy_rng(env)
        self.target = self.choose(env, info, rng)
        self._expert = PickPlaceExpert(env, self.target, rng=rng, safe=self.safe)

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The expert's next action."""
        return np.asarray(self._expert.act(obs), dtype=np.float64)

    @property
    def done(self) -> bool:
        """The expert has placed, released and retracted."""
        return bool(self._expert is not None and self._expert.done)

    def status(self) -> PolicyStatus:
        """The expert's phase, its failure (a phase it could not plan) and its warnings."""
        if self._expert is None:
            return PolicyStatus()
        e = self._expert
        return PolicyStatus(phase=e.phase, failure=e.failure, warnings=tuple(e.warnings))


class ExpertPolicy(ScriptedPolicy):
    """Picks the correct candidate: the oracle upper bound (TSR near 100%)."""

    name = "expert"
    privileged = True
    safe = True

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """The episode's target, read through the privileged channel (``env.answer``)."""
        return str(env.answer)

    def goal_expert(self, env: GoalView) -> Any:
        """The goal expert on ``env``, its generator seeded by the episode's seed."""
        # deferred: rsb --help imports rsb_mj.policies; the expert (mink) loads on use
        from rsb_mj.expert.goal_expert import GoalExpert

        return GoalExpert(env)


class RandomGraspPolicy(ScriptedPolicy):
    """Picks a uniformly random candidate: the chance baseline (nSG about 0)."""

    name = "random-grasp"

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """A uniform draw from ``info["candidates"]``."""
        candidates = tuple(info["candidates"])
        return candidates[int(rng.integers(len(candidates)))]


def nearest_candidate(positions: dict[str, np.ndarray], anchors: list[np.ndarray]) -> str:
    """The candidate whose xy is nearest to any anchor xy (world frame, metres).

    Ties go to the first candidate in ``positions`` order.
    """
    return min(
        positions,
        key=lambda name: min(
            math.hypot(*(np.asarray(positions[name])[:2] - np.asarray(a)[:2])) for a in anchors
        ),
    )


class NearestPolicy(ScriptedPolicy):
    """Picks the candidate nearest to either gripper at reset: blind to the instruction."""

    name = "nearest"

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """Smallest world xy distance from a candidate body to a gripper tool site."""
        scene, data = env.scene, env.data
        bodies = dict(zip(scene.candidates, scene.candidate_bodies, strict=True))
        positions = {c: data.body(bodies[c]).xpos.copy() for c in info["candidates"]}
        anchors = [data.site(site).xpos.copy() for site in scene.gripper_sites.values()]
        return nearest_candidate(positions, anchors)
