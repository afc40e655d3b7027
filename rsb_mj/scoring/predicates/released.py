"""``(Released ?x)``: no gripper finger or pad touches the candidate."""

from __future__ import annotations

import numpy as np

from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals


@register
class Released(Predicate):
    """Neither gripper touches the candidate."""

    name = "Released"

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and candidate, shape (S, N)."""
        return ~signals.contact.any(axis=2)
