"""``(Grasped ?c)``: the grasp criterion of the RSB paper, Appendix C, read strictly.

An object (a candidate, or the object a task names: Act2Answer's cube) counts as grasped at
a physics substep when, for one gripper (the same one for every condition):

1. the object touches *both* finger links of that gripper (``pinch``): it is held between
   the fingers. A push or a brush touches one finger; a contact through a held object is a
   contact with the held object, not with this one;
2. that same gripper is commanded closed (``gripper_cmd`` below :data:`CLOSED_BELOW`). A
   closed gripper on the *other* arm never counts. Commanded, not measured: a gripper closed
   on a 4-5 cm block stays measurably half open;
3. that gripper is not closed on nothing: its measured opening is above
   :data:`HELD_OPEN_ABOVE` (closed fingertips pushing a block touch it with both fingers but
   hold nothing between them);
4. the object is lifted off the table (center at least :data:`LIFT_ABOVE_M` above its
   resting height and no contact with the table), or conditions 1-3 have held for
   :data:`STABLE_CONTROL_STEPS` consecutive control steps (0.4 s at 20 Hz; the count is kept
   in physics substeps, ``STABLE_CONTROL_STEPS * S`` with S substeps per control step, and
   carries across control steps).
"""

from __future__ import annotations

import numpy as np

from rsb_mj.scoring.predicates.base import Predicate, register
from rsb_mj.scoring.signals import StepSignals

#: A gripper command below this (0 closed .. 1 open) counts as closed.
CLOSED_BELOW = 0.5
#: Measured normalized opening above which a closed gripper holds something between its
#: fingers (0.05 of the 35 mm finger travel: 1.75 mm per finger beyond fully closed).
HELD_OPEN_ABOVE = 0.05
#: Lift of the object center above its resting height that counts as "lifted" [m].
LIFT_ABOVE_M = 0.01
#: Consecutive control steps of a pinch with the closed gripper that count as a grasp.
STABLE_CONTROL_STEPS = 8


@register
class Grasped(Predicate):
    """Appendix C grasp, strict: pinched by one closed gripper, and lifted or held 0.4 s."""

    name = "Grasped"
    signals = ("pinch", "table_contact", "gripper_cmd", "gripper_open", "lift")

    def __init__(
        self, args: tuple[str, ...] = (), *, where: str = "", zones: tuple[str, ...] = ()
    ) -> None:
        super().__init__(args, where=where, zones=zones)
        self._run: np.ndarray | None = None

    def reset(self) -> None:
        """Zero the consecutive-pinch counters."""
        self._run = None

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and object, shape (S, M)."""
        closed = signals.gripper_cmd < CLOSED_BELOW  # (S, 2)
        holding = signals.gripper_open > HELD_OPEN_ABOVE  # (S, 2)
        held = signals.pinch & (closed & holding)[:, None, :]  # (S, N, 2)
        lifted = (signals.lift > LIFT_ABOVE_M) & ~signals.table_contact  # (S, N)
        stable = STABLE_CONTROL_STEPS * signals.substeps
        run = np.zeros(held.shape[1:], dtype=np.int64) if self._run is None else self._run
        out = np.zeros(held.shape[:2], dtype=bool)
        for s in range(signals.substeps):
            run = np.where(held[s], run + 1, 0)
            out[s] = (held[s] & (lifted[s][:, None] | (run >= stable))).any(axis=1)
        self._run = run
        return out
