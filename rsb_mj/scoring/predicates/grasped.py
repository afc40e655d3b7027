"""``(Grasped ?c)``: the grasp criterion of the RSB paper, Appendix C.

A candidate counts as grasped at a physics substep when all of these hold:

1. a gripper touches it (``contact``: any finger/pad geom of the left or right gripper);
2. at least one gripper is closed: its *commanded* opening is below
   :data:`CLOSED_BELOW`. Commanded, not measured: a gripper closed on a 4-5 cm block
   stays measurably half open (the block keeps the fingers apart), so the measured opening
   cannot tell "closed on a block" from "open"; the command is the policy's decision and
   is what RoboTwin's criterion reads too;
3. the candidate is lifted more than :data:`LIFT_ABOVE_M` above its resting height, or
   conditions 1 and 2 have held for :data:`STABLE_SUBSTEPS` consecutive physics substeps
   (8 x 2 ms; the count carries across control steps).

As in the paper, condition 2 asks for *a* closed gripper, not necessarily the touching one.
"""

from __future__ import annotations

import numpy as np

from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals

#: A gripper command below this (0 closed .. 1 open) counts as closed.
CLOSED_BELOW = 0.5
#: Lift of the candidate center above its resting height that counts as "lifted" [m].
LIFT_ABOVE_M = 0.01
#: Consecutive physics substeps of contact with a closed gripper that count as a grasp.
STABLE_SUBSTEPS = 8


@register
class Grasped(Predicate):
    """Appendix C grasp: contact, a closed gripper, and lifted or stable for 8 substeps."""

    name = "Grasped"

    def __init__(self, args: tuple[str, ...] = (), *, where: str = "") -> None:
        super().__init__(args, where=where)
        self._run: np.ndarray | None = None

    def reset(self) -> None:
        """Zero the consecutive-contact counters."""
        self._run = None

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and candidate, shape (S, N)."""
        touching = signals.contact.any(axis=2)
        closed = (signals.gripper_cmd < CLOSED_BELOW).any(axis=1)
        held = touching & closed[:, None]
        lifted = signals.lift > LIFT_ABOVE_M
        run = np.zeros(signals.candidates, dtype=np.int64) if self._run is None else self._run
        out = np.zeros_like(held)
        for s in range(signals.substeps):
            run = np.where(held[s], run + 1, 0)
            out[s] = held[s] & (lifted[s] | (run >= STABLE_SUBSTEPS))
        self._run = run
        return out
