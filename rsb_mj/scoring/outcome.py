"""The one-attempt outcome of an episode and the two ways a task's choice is made.

The task names what moves; ``?answer`` binds a candidate. Which candidate the policy chose
follows from what the task's ``:grasp`` talks about:

* :class:`FirstGrasp` (the ``:grasp`` ranges over the candidates, ``(Grasped ?c -
  candidate)``: RSB, where the candidate is what moves): the choice is the first candidate
  grasped;
* :class:`FirstPlacement` (the ``:grasp`` names the object that moves, ``(Grasped cube)``,
  and the goal puts it on ``?answer``: Act2Answer): the choice is the first candidate the
  goal holds for, i.e. the first candidate the released object comes to rest on.

Both take the truth arrays the scorer computes from the compiled ``:grasp`` and ``:goal``
(:class:`rsb_mj.scoring.expression.CompiledExpression`), so they never read signals or
predicates themselves; the scorer (:mod:`rsb_mj.scoring.scorer`) sits above them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

#: Control steps the goal must hold without a break, after the correct choice, to decide a
#: success before the episode ends (0.5 s at 20 Hz).
SUCCESS_HOLD_STEPS = 10
#: Consecutive control steps a goal task's goal must hold for success (0.5 s at 20 Hz;
#: :class:`~rsb_mj.scoring.goal_checker.GoalChecker`).
HOLD_STEPS = 10


@dataclass
class Outcome:
    """What scoring found in one episode so far.

    Attributes:
        grasped: the ``:grasp`` held at some substep (the GSR flag).
        choice: the candidate chosen (the policy's one attempt), or None.
        grasp_step: control step (1-based) of the first grasp, or None.
        grasped_candidates: what was grasped, in order of first grasp: candidates
            (:class:`FirstGrasp`; diagnostics, only the first counts) or the object the
            ``:grasp`` names (:class:`FirstPlacement`).
        correct_choice: the choice is the correct candidate.
        success: the TSR flag (decided, or at the last substep).
        decided: the outcome can no longer change.
        decided_step: control step (1-based) where it was decided, or None.
        success_step: control step where success was decided, or None.
        goal_final: the goal holds for the answer at the last substep scored.
        in_zone: candidates at the goal's place at the last substep scored (see each rule).
        steps: control steps scored.
        void_reason: why the one attempt made no choice and failed (two candidates grasped
            in the same control step), or None.
    """

    grasped: bool = False
    choice: str | None = None
    grasp_step: int | None = None
    grasped_candidates: list[str] = field(default_factory=list)
    correct_choice: bool = False
    success: bool = False
    decided: bool = False
    decided_step: int | None = None
    success_step: int | None = None
    goal_final: bool = False
    in_zone: list[str] = field(default_factory=list)
    steps: int = 0
    void_reason: str | None = None


class ChoiceRule(ABC):
    """How one control step's truth arrays move an :class:`Outcome` on.

    Attributes:
        candidates: the candidate axis N; target: the correct candidate.
    """

    def __init__(self, candidates: tuple[str, ...], target: str) -> None:
        self.candidates = tuple(candidates)
        self.target = target
        self._held = 0  # consecutive substeps of what decides early

    @abstractmethod
    def update(self, out: Outcome, grasp: np.ndarray, goal: np.ndarray, place: np.ndarray) -> None:
        """Score one control step of S substeps (``out.steps`` already counts it).

        Args:
            out: the outcome so far (not yet decided).
            grasp: bool (S, N), the ``:grasp`` per candidate as its variable's value.
            goal: bool (S, N), the ``:goal`` per candidate as ``?answer``'s value.
            place: bool (S, N), the goal's place atoms alone (``In``, ``On``).
        """

    @abstractmethod
    def finish(self, out: Outcome) -> None:
        """Close an undecided episode (step limit, policy done) on its last substep."""

    @abstractmethod
    def would_succeed(self, out: Outcome) -> bool:
        """What :meth:`finish` would make ``out.success`` now (``out`` undecided)."""

    def _decide(self, out: Outcome, *, success: bool) -> None:
        out.success, out.decided, out.decided_step = success, True, out.steps
        if success:
            out.success_step = out.steps


class FirstGrasp(ChoiceRule):
    """The choice is the first candidate grasped (RSB, read strictly).

    * Two or more candidates grasped in the control step of the first grasp (the two arms,
      or one gripper pinching two) are **no choice**: the episode fails at once, whatever
      their order (``void_reason`` says why). A grasp only through a held object is no grasp
      at all (the grasp needs the candidate between the fingers).
    * A first grasp on a wrong candidate **fails the episode** at that substep, whatever
      follows.
    * **Success** needs the correct choice and the goal for the answer: decided once it has
      held without a break for :data:`SUCCESS_HOLD_STEPS` control steps after the choice,
      else scored on the last substep (:meth:`finish`).
    * ``in_zone``: the candidates at the goal's place (``In ?answer zone``) at the last
      substep scored, held or not.
    """

    def update(self, out: Outcome, grasp: np.ndarray, goal: np.ndarray, place: np.ndarray) -> None:
        answer = goal[:, self.candidates.index(self.target)]
        if not out.grasped and np.count_nonzero(grasp.any(axis=0)) > 1:
            self._void(out, grasp, answer, place)
            return
        hold = SUCCESS_HOLD_STEPS * len(grasp)
        s = 0
        for s in range(len(grasp)):
            for n in np.flatnonzero(grasp[s]):
                name = self.candidates[n]
                if name not in out.grasped_candidates:
                    out.grasped_candidates.append(name)
                if not out.grasped:
                    out.grasped, out.choice, out.grasp_step = True, name, out.steps
                    out.correct_choice = name == self.target
            if out.grasped and not out.correct_choice:
                self._decide(out, success=False)
                break
            self._held = self._held + 1 if (out.correct_choice and answer[s]) else 0
            if self._held >= hold:
                self._decide(out, success=True)
                break
        out.goal_final = bool(answer[s])
        out.in_zone = [self.candidates[n] for n in np.flatnonzero(place[s])]

    def _void(self, out: Outcome, grasp: np.ndarray, answer: np.ndarray, place: np.ndarray) -> None:
        """Several candidates first grasped in this control step: no choice, a failure,
        decided at the substep where the second one was grasped."""
        first = {int(n): int(np.argmax(grasp[:, n])) for n in np.flatnonzero(grasp.any(axis=0))}
        order = sorted(first, key=lambda n: (first[n], n))
        s = sorted(first.values())[1]
        names = [self.candidates[n] for n in order]
        out.grasped, out.grasp_step, out.grasped_candidates = True, out.steps, names
        out.void_reason = f"{', '.join(names)} grasped in the same control step: no choice"
        self._decide(out, success=False)
        out.goal_final = bool(answer[s])
        out.in_zone = [self.candidates[n] for n in np.flatnonzero(place[s])]

    def finish(self, out: Outcome) -> None:
        out.success = self.would_succeed(out)
        out.decided = True

    def would_succeed(self, out: Outcome) -> bool:
        return out.correct_choice and out.goal_final


class FirstPlacement(ChoiceRule):
    """The choice is the first candidate the goal holds for (Act2Answer: the first plate the
    released cube rests on) for :data:`SUCCESS_HOLD_STEPS` control steps without a break.

    * That first placement decides the episode; nothing after it counts (a cube slid to
      the other plate after it, or thrown and bouncing on, keeps its first choice). While
      the goal holds for more than one candidate at once, nothing is placed (``On`` itself
      refuses a cube touching two plates, so a straddling cube decides nothing until it
      rests on one plate only).
    * **GSR**: the ``:grasp`` (the moved object grasped) held at some substep; a placement
      without a grasp (a push) is a choice but no success.
    * **Success**: grasped, and the choice is the correct candidate.
    * An episode cut before a placement is decided takes the candidate the goal holds for
      at its last substep, if any, as its choice.
    * ``in_zone``: the candidates the goal holds for (the object rests on them, released) at
      the last substep scored.

    Attributes:
        movers: what ``grasped_candidates`` lists once grasped (the objects the ``:grasp``
            names).
    """

    def __init__(self, candidates: tuple[str, ...], target: str, movers: tuple[str, ...]) -> None:
        super().__init__(candidates, target)
        self.movers = tuple(movers)
        self._on: int | None = None  # the candidate the goal held for at the last substep

    def update(self, out: Outcome, grasp: np.ndarray, goal: np.ndarray, place: np.ndarray) -> None:
        hold = SUCCESS_HOLD_STEPS * len(grasp)
        grasped = grasp.any(axis=1)
        s = 0
        for s in range(len(grasp)):
            if grasped[s] and not out.grasped:
                out.grasped, out.grasp_step = True, out.steps
                out.grasped_candidates = list(self.movers)
            hits = np.flatnonzero(goal[s])
            on = int(hits[0]) if hits.size == 1 else None
            self._held = self._held + 1 if (on is not None and on == self._on) else 1
            self._on = on
            if on is not None and self._held >= hold:
                self._choose(out, on)
                break
        out.in_zone = [self.candidates[n] for n in np.flatnonzero(goal[s])]
        out.goal_final = out.grasped and self.target in out.in_zone

    def finish(self, out: Outcome) -> None:
        if self._on is not None:
            self._choose(out, self._on)
        out.decided = True

    def would_succeed(self, out: Outcome) -> bool:
        return out.grasped and self._on is not None and self.candidates[self._on] == self.target

    def _choose(self, out: Outcome, n: int) -> None:
        out.choice = self.candidates[n]
        out.correct_choice = out.choice == self.target
        self._decide(out, success=out.grasped and out.correct_choice)
