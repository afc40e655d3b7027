"""Score an Act2Answer episode: the cube grasped (GSR), the plate it rests on (the choice).

The protocol (one attempt, as the RSB suites):

* **GSR**: the cube was grasped (``(Grasped cube)``: the strict grasp of
  :mod:`rsb_mj.scoring.predicates.grasped`, on the cube's signals).
* **Choice**: the first plate the cube comes to rest on, released (no finger touches it),
  for :data:`~rsb_mj.scoring.scorer.SUCCESS_HOLD_STEPS` control steps (0.5 s at 20 Hz).
  That first placement decides the episode: nothing after it counts.
* **TSR**: the cube was grasped and its choice is the plate of the correct answer
  (``(On cube ?answer)`` with ``(Released cube)``).

An episode cut before a placement is decided (step limit, policy done) takes the plate the
released cube lies on at its last substep, if any, as its choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates.grasped import Grasped
from rsb_mj.scoring.scorer import SUCCESS_HOLD_STEPS, Outcome
from rsb_mj.scoring.signals import StepSignals


class A2AScorer:
    """The one-attempt outcome of an A2A episode, updated every control step.

    Attributes:
        plates: plate names (the candidates; ``on_plate``'s P axis).
        target: the plate of the correct answer.
        pick: the pick object's name.
        outcome: the :class:`~rsb_mj.scoring.scorer.Outcome` so far (``choice`` is a plate,
            ``grasped_candidates`` lists the cube once grasped, ``in_zone`` the plates the
            released cube lies on).
    """

    def __init__(self, plates: tuple[str, ...], target: str, pick: str) -> None:
        if target not in plates:
            raise EvalError(f"target {target!r} is not a plate; valid choices: {', '.join(plates)}")
        self.plates, self.target, self.pick = tuple(plates), target, pick
        self.outcome = Outcome()
        self._grasp = Grasped()
        self._plate: int | None = None
        self._held = 0

    def update(self, signals: StepSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step (``info["signals"]`` of an A2A scene).

        Raises:
            EvalError: when the signals lack ``on_plate`` or have the wrong shapes.
        """
        out = self.outcome
        if out.decided:
            return out
        if isinstance(signals, StepSignals) or "on_plate" not in signals:
            raise EvalError("Act2Answer scoring needs info['signals']['on_plate']")
        on_plate = np.asarray(signals["on_plate"], dtype=bool)
        sig = StepSignals.from_info(signals, 1)
        if on_plate.shape != (sig.substeps, len(self.plates)):
            raise EvalError(
                f"info['signals']['on_plate'] has shape {on_plate.shape}; expected "
                f"({sig.substeps}, {len(self.plates)})"
            )
        out.steps += 1
        grasp = self._grasp.evaluate(sig)[:, 0]
        released = ~sig.contact[:, 0, :].any(axis=1)
        resting = on_plate & released[:, None]
        hold = SUCCESS_HOLD_STEPS * sig.substeps
        for s in range(sig.substeps):
            if grasp[s] and not out.grasped:
                out.grasped, out.grasp_step = True, out.steps
                out.grasped_candidates = [self.pick]
            hits = np.flatnonzero(resting[s])
            plate = int(hits[0]) if hits.size else None
            self._held = self._held + 1 if (plate is not None and plate == self._plate) else 1
            self._plate = plate
            if plate is not None and self._held >= hold:
                self._choose(plate)
                break
        out.in_zone = [self.plates[p] for p in np.flatnonzero(resting[s])]
        out.goal_final = out.grasped and self.target in out.in_zone
        return out

    def _choose(self, plate: int) -> None:
        out = self.outcome
        out.choice = self.plates[plate]
        out.correct_choice = out.choice == self.target
        out.success = out.grasped and out.correct_choice
        out.decided, out.decided_step = True, out.steps
        if out.success:
            out.success_step = out.steps

    def finish(self) -> Outcome:
        """Close the episode: an undecided one takes the plate the released cube lies on."""
        out = self.outcome
        if not out.decided:
            if self._plate is not None:
                self._choose(self._plate)
            out.decided = True
        return out
