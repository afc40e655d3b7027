"""``(Released ?x)``: no gripper finger or pad touches the object."""

from __future__ import annotations

import numpy as np

from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals


@register
class Released(Predicate):
    """Neither gripper touches the object."""

    name = "Released"
    signals = ("contact",)

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and object, shape (S, M)."""
        return ~signals.contact.any(axis=2)
