"""Scripted baselines: pick a candidate, then let the scripted expert move it.

Each policy here binds the task's ``?answer`` to a candidate at reset and delegates the
motion to the scripted expert: :func:`rsb_mj.expert.entry.expert_for` over the placements
the task asks with that binding (:func:`rsb_mj.expert.placements.placements`: grasp with the
arm on the candidate's side, place in the answer zone, release, retract). They read
simulator state for their motions (``simulator = True``: a
:class:`~rsb_mj.env.views.SimView`); only the expert reads the answer
(``privileged = True``). Only the choice differs:

* ``expert``: the correct candidate (the privileged oracle upper bound);
* ``random-grasp``: a uniformly random candidate (chance baseline: nSG about 0);
* ``nearest``: the candidate nearest to a gripper at reset (language-blind baseline).

A task without candidates (a goal task) binds nothing: ``expert`` carries out its placements
(every ``On``/``In`` of the goal in turn, clear of the ``:cost`` hazards); the baselines, which
only choose, refuse with a :class:`~rsb_mj.errors.PolicyError` (an error record naming the
policies that run).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any

import numpy as np

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

    def unbound(self) -> None:
        """What this policy does on a task without candidates: a baseline only chooses.

        Raises:
            PolicyError: a baseline chooses among a question task's candidates.
        """
        raise PolicyError(
            f"policy {self.name}: chooses among a question task's candidates; a goal task "
            "asks none (run expert, noop or your own policy on goal tasks)"
        )

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Bind ``?answer`` (:meth:`choose`; :meth:`unbound` on a task without candidates)
        and start the expert on the placements the task asks with that binding."""
        # deferred: rsb --help imports rsb_mj.policies; the expert (mink) loads on use
        from rsb_mj.expert.entry import expert_for
        from rsb_mj.expert.placements import choices, placements

        rng = policy_rng(env)
        self.target = self.choose(env, info, rng) if choices(env.task) else self.unbound()
        asked = placements(env.task, self.target)
        self._expert = expert_for(env, asked, rng=rng, safe=self.safe)

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

    def unbound(self) -> None:
        """Nothing to bind on a task without candidates: the expert carries out its goal."""
        return None


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
