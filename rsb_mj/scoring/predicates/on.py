"""``(On ?x ?c)``: the object rests on a candidate (Act2Answer: the cube on a plate).

The second argument is a *support*: a candidate (``?answer``, a candidate variable or a
candidate's name), so ``(On cube ?answer)`` holds when the cube rests on the answer's
plate. The environment reports one signal for it, ``on`` (S, M, N): object m's center lies
over candidate n's top face (its collision geometry's footprint, in the candidate's own
frame, so a turned plate counts as turned) and object m rests low (lift < 0.02 m above its
own resting height at reset, as for ``In``; so a support is at most about 2 cm tall, such as
a plate).
"""

from __future__ import annotations

import numpy as np

from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals


@register
class On(Predicate):
    """The object rests on the candidate."""

    name = "On"
    support = True
    place = True
    signals = ("on",)

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep, object and candidate, shape (S, M, N)."""
        return signals.on.copy()
