"""``(In ?x REGION)``: the candidate rests inside a region.

The environment reports one region signal, ``in_zone``: the candidate center's xy lies
inside the answer zone and the candidate rests low (lift < 0.02 m). So ``REGION`` must be
the answer zone (``table_answer_zone``, any name ending in ``answer_zone``).
"""

from __future__ import annotations

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals

#: Suffix of the region names that have an ``in_zone`` signal.
ZONE_SUFFIX = "answer_zone"


@register
class In(Predicate):
    """The candidate is inside the answer zone, resting."""

    name = "In"
    params = ("region",)

    def __init__(self, args: tuple[str, ...] = (), *, where: str = "") -> None:
        super().__init__(args, where=where)
        if not args[0].endswith(ZONE_SUFFIX):
            raise EvalError(
                f"{where}: (In ?x {args[0]}) cannot be scored: only the answer zone has a "
                "signal; valid choices: table_answer_zone"
            )

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and candidate, shape (S, N)."""
        return signals.in_zone.copy()
