"""``(In ?x REGION)``: the object rests inside a region.

The environment reports one region signal, ``in_zone``: the object center's xy lies
inside the answer zone and the object rests low (lift < 0.02 m). So ``REGION`` must be
an answer-zone region: one the task declares with ``(:answer_zone ...)`` (``zones``).
"""

from __future__ import annotations

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals


@register
class In(Predicate):
    """The object is inside the answer zone, resting."""

    name = "In"
    params = ("region",)
    place = True
    signals = ("in_zone",)

    def __init__(
        self, args: tuple[str, ...] = (), *, where: str = "", zones: tuple[str, ...] = ()
    ) -> None:
        super().__init__(args, where=where, zones=zones)
        if args[0] not in zones:
            valid = ", ".join(zones) if zones else "none (the task declares no :answer_zone)"
            raise EvalError(
                f"{where}: (In ?x {args[0]}) cannot be scored: only the answer zone has a "
                f"signal; valid choices: {valid}"
            )

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and object, shape (S, M)."""
        return signals.in_zone.copy()
