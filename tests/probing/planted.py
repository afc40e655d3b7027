"""Policies with known per-layer features, for the probing tests (``probing.planted:NAME``).

* :class:`Planted` (privileged, in process): layer ``L{k}`` of :data:`LAYERS` carries the
  correct option as a one-hot code that is right with probability :data:`PLANTED_ACCURACY`
  (else a uniformly drawn wrong letter), plus unit Gaussian noise; every other layer is
  noise only. Draws come from the episode's policy seed (same episode, same features).
  It holds still: one act, then done.
* :class:`Layered` (a user policy, in a policy process): features computed from the
  observation it is handed (the state), never from the answer.
"""

from __future__ import annotations

import numpy as np
from evaluation.fakes import ToyOracle

from rsb_mj.policies.base import Policy, policy_rng

#: Layer names in depth order.
LAYERS = tuple(f"L{i}" for i in range(6))
#: The layer that carries the answer.
PLANTED_LAYER = "L3"
#: Share of episodes whose planted code names the correct option.
PLANTED_ACCURACY = 0.8
#: Size of each layer [values].
WIDTH = 8
#: Amplitude of the planted code against unit noise.
AMPLITUDE = 4.0


class Planted(Policy):
    """See the module docstring."""

    cameras = ()
    simulator = True
    privileged = True

    def reset(self, env, obs, info) -> None:
        rng = policy_rng(env)
        letters = sorted(env.letters.values())
        correct = env.letters[env.answer]
        if rng.random() >= PLANTED_ACCURACY:
            correct = str(rng.choice([x for x in letters if x != correct]))
        self._features = {name: rng.normal(size=WIDTH) for name in LAYERS}
        self._features[PLANTED_LAYER][letters.index(correct)] += AMPLITUDE
        self.state = np.asarray(obs["state"], dtype=np.float64)
        self.acted = False

    def act(self, obs) -> np.ndarray:
        self.acted = True
        return self.state

    @property
    def features(self):
        return self._features

    @property
    def done(self) -> bool:
        return self.acted


class Layered:
    """A user object whose ``features()`` method reports two layers of the state."""

    cameras = ()

    def reset(self, env, obs, info) -> None:
        self.t = 0

    def act(self, obs):
        self.t += 1
        self.state = np.asarray(obs["state"], dtype=np.float64)
        return np.ones(14)

    def features(self):
        return {"input": self.state[:4], "deep": np.full(3, float(self.t), dtype=np.float16)}


class NoFeatures:
    """A user object without features."""

    cameras = ()

    def act(self, obs):
        return np.ones(14)


class BadFeatures(Layered):
    """Reports a 2-D layer from its third act on."""

    def features(self):
        if self.t >= 3:
            return {"input": np.zeros((2, 2)), "deep": np.zeros(3)}
        return super().features()


def planted() -> Planted:
    """``module:factory`` entry (use it as ``inprocess:probing.planted:planted``)."""
    return Planted()


def layered() -> Layered:
    """``module:factory`` entry."""
    return Layered()


def no_features() -> NoFeatures:
    """``module:factory`` entry."""
    return NoFeatures()


def bad_features() -> BadFeatures:
    """``module:factory`` entry."""
    return BadFeatures()


class Picks(ToyOracle):
    """The toy oracle of :mod:`evaluation.fakes` (grasps the correct block at its first act)
    reporting its act count as a feature."""

    @property
    def features(self):
        return {"t": [float(self.t)]}


def picks() -> Picks:
    """``module:factory`` entry (``inprocess:probing.planted:picks``)."""
    return Picks()


class BatchLayered:
    """:class:`Layered` as a batched user object (``act_batch``, per-slot state and
    ``slot_features``): the same features for the same episode."""

    cameras = ()

    def __init__(self) -> None:
        self.slots: dict[int, Layered] = {}

    def reset_slot(self, slot, env, obs, info) -> None:
        self.slots[slot] = Layered()
        self.slots[slot].reset(env, obs, info)

    def act_batch(self, obs, slots):
        return [self.slots[s].act(o) for o, s in zip(obs, slots, strict=True)]

    def slot_features(self, slot):
        return self.slots[slot].features()


def batch_layered() -> BatchLayered:
    """``module:factory`` entry."""
    return BatchLayered()
