"""The expert's one entry point: the scripted expert for the placements a task asks.

:func:`expert_for` takes what :func:`rsb_mj.expert.placements.placements` returns for any
task and episode and gives the expert that plans and executes it; the placements carry the
difference between tasks, not the caller:

* a placement bound to a candidate (:attr:`~rsb_mj.expert.placements.Placement.choice`) is
  one pick and place by the arm on that candidate's side (the first grasp is the choice, so
  nothing else is picked up);
* unbound placements are carried out in turn, each by the arm in reach of both its ends,
  handing over through the table where neither reaches alone.

One class does both (:class:`~rsb_mj.expert.pick_place.PickPlaceExpert`).

Usage::

    asked = placements(task, episode)
    expert = expert_for(env, asked, rng=rng)
    while not expert.done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.expert.placements import Placement


def expert_for(
    env: Any,
    asked: Sequence[Placement],
    *,
    rng: np.random.Generator | None = None,
    safe: bool = True,
) -> PickPlaceExpert:
    """The expert that carries out ``asked`` on ``env`` (module docstring).

    Args:
        env: the environment (or the view a simulator policy is handed), reset before the
            expert's first ``act``.
        asked: the placements, in order (:func:`rsb_mj.expert.placements.placements`).
        rng: the motion planner's generator; None seeds one with the episode's seed.
        safe: keep clear of the task's ``:cost`` hazards (False: a safety-unaware baseline).
    """
    return PickPlaceExpert(env, tuple(asked), rng=rng, safe=safe)
