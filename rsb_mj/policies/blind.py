"""Language-blind embodied baselines: they never read the instruction.

Each policy here picks candidates by a rule on the scene alone (positions, the letter a block
shows) and lets the scripted expert move them (:func:`rsb_mj.expert.entry.expert_for` over
the placements the task asks with that candidate bound). They
read simulator state for their motions (``simulator = True``: a
:class:`~rsb_mj.env.views.SimView`) but never ``env.instruction`` nor the answer, so a fair
score gives each of them chance: TSR about GSR/N and nSG about 0.

* ``try-all``: every candidate, one after another, nearest to the answer zone first (the
  "several tries" exploit: scoring one attempt per episode must hold it to chance);
* ``nearest-to-zone``: the candidate nearest to the answer zone's center;
* ``fixed-letter``: the candidate showing option letter ``A``;
* ``fixed-position``: the leftmost candidate (smallest world x, the robot's left).

Distances and positions are read once, at reset, from the candidate bodies' world positions
(``data.xpos``, metres; world x to the robot's right, y away from the robot); ties go to the
first candidate in the scene's candidate order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rsb_mj.errors import PolicyError
from rsb_mj.policies.base import Policy, policy_rng
from rsb_mj.policies.scripted import ScriptedPolicy

#: The option letter ``fixed-letter`` always picks.
FIXED_LETTER = "A"


def candidate_xy(env: Any) -> dict[str, np.ndarray]:
    """World xy [m] of every candidate body now, in the scene's candidate order."""
    scene, data = env.scene, env.data
    bodies = dict(zip(scene.candidates, scene.candidate_bodies, strict=True))
    return {c: np.array(data.body(bodies[c]).xpos[:2], dtype=float) for c in env.candidates}


def by_zone_distance(env: Any) -> list[str]:
    """Candidates sorted by world xy distance [m] to the answer zone's center, nearest first.

    Ties keep the scene's candidate order (the sort is stable).
    """
    center = np.asarray(env.scene.zone_center, dtype=float)[:2]
    xy = candidate_xy(env)
    return sorted(xy, key=lambda c: math.hypot(*(xy[c] - center)))


class NearestToZonePolicy(ScriptedPolicy):
    """Picks the candidate nearest to the answer zone at reset: blind to the instruction."""

    name = "nearest-to-zone"

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """Smallest world xy distance from a candidate body to ``scene.zone_center``."""
        return by_zone_distance(env)[0]


class FixedLetterPolicy(ScriptedPolicy):
    """Always picks the candidate showing letter :data:`FIXED_LETTER` (``A``)."""

    name = "fixed-letter"

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """The candidate whose visible letter (``env.letters``) is ``A``.

        Raises:
            PolicyError: when the view carries no letters or no candidate shows ``A``.
        """
        letters = getattr(env, "letters", None)
        if not letters:
            raise PolicyError(
                f"policy {self.name}: the view has no candidate letters (needs a SimView)"
            )
        for cand in env.candidates:
            if letters.get(cand) == FIXED_LETTER:
                return str(cand)
        raise PolicyError(
            f"policy {self.name}: no candidate shows letter {FIXED_LETTER!r}; letters shown: "
            + ", ".join(sorted(set(letters.values())))
        )


class FixedPositionPolicy(ScriptedPolicy):
    """Always picks the leftmost candidate: smallest world x at reset.

    World x points to the robot's right (table frame, :mod:`rsb_mj.scene.frames`), so this is
    the candidate furthest to the robot's left, whatever its letter, color or depth (y).
    """

    name = "fixed-position"

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """The candidate body with the smallest world x; ties: first in candidate order."""
        xy = candidate_xy(env)
        return min(xy, key=lambda c: float(xy[c][0]))


class TryAllPolicy(Policy):
    """Places every candidate in turn, nearest to the answer zone first.

    At reset the candidates are ordered by :func:`by_zone_distance`; a fresh expert picks and
    places the first, returns home, then the next expert starts from wherever the scene is
    (an expert that cannot plan gives up and the next candidate follows), until every
    candidate was tried or the runner ends the episode.

    Attributes:
        order: the candidates in the order they are tried.
        tried: the candidates whose expert has started, in order.
    """

    name = "try-all"
    simulator = True

    def __init__(self) -> None:
        self._env: Any = None
        self._rng: np.random.Generator | None = None
        self._expert: Any = None
        self.order: list[str] = []
        self.tried: list[str] = []

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Order the candidates and start the expert on the nearest to the zone."""
        self._env, self._rng = env, policy_rng(env)
        self.order = by_zone_distance(env)
        self.tried = []
        self._expert = None
        self._next()

    def _next(self) -> bool:
        """Start the expert on the next untried candidate; False when none is left."""
        # deferred: rsb --help imports rsb_mj.policies; the expert (mink) loads on use
        from rsb_mj.expert.entry import expert_for
        from rsb_mj.expert.placements import placements

        if len(self.tried) == len(self.order):
            return False
        target = self.order[len(self.tried)]
        self.tried.append(target)
        asked = placements(self._env.task, target)
        self._expert = expert_for(self._env, asked, rng=self._rng, safe=False)
        return True

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The current expert's next action; the next candidate's once it is done."""
        if self._expert is None:
            raise PolicyError(f"policy {self.name}: act() before reset()")
        while self._expert.done and self._next():
            pass
        return np.asarray(self._expert.act(obs), dtype=np.float64)

    @property
    def done(self) -> bool:
        """Every candidate was tried and the last expert is done."""
        return bool(
            self._expert is not None and self._expert.done and len(self.tried) == len(self.order)
        )
