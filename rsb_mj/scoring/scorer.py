"""Score one episode from the environment's signals: one attempt, choice, success.

The protocol (RSB, read strictly; stated in the README):

* **One attempt.** The episode's *choice* is the first candidate grasped (``:grasp``, e.g.
  the strict Appendix C grasp of :mod:`rsb_mj.scoring.predicates.grasped`). Two candidates
  first grasped in the same substep: the first in candidate order is the choice.
* A first grasp on a wrong candidate **fails the episode** whatever follows: the outcome is
  decided at that substep (``decided``; the env reports ``terminated`` and the runner stops).
* **Success** (the TSR flag) needs the choice to be the correct candidate and the ``:goal``
  (e.g. the answer in the zone, released) to hold at the end of the episode. The outcome is
  decided early, as a success, once the goal has held without a break for
  :data:`SUCCESS_HOLD_STEPS` control steps (0.5 s at 20 Hz) after the correct choice: a
  block that bounces through the zone is not a success, a block that rests there is. An
  episode cut before that (step limit, policy done) is scored on its last substep
  (:meth:`EpisodeScorer.finish`).

So TSR <= GSR, nSG stays at most 1, and a knock-in, a push, a second try or a placement
after a wrong first grasp never scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.a2a import is_a2a, pick_objects
from rsb_mj.lang.ast import Expr, Problem
from rsb_mj.scoring.expression import CompiledExpression
from rsb_mj.scoring.signals import StepSignals

#: Control steps the goal must hold without a break, after the correct choice, to decide a
#: success before the episode ends (0.5 s at 20 Hz).
SUCCESS_HOLD_STEPS = 10


@dataclass
class Outcome:
    """What scoring found in one episode so far.

    Attributes:
        grasped: some candidate was grasped (the GSR flag).
        choice: first candidate grasped (the policy's one attempt), or None.
        grasp_step: control step (1-based) of the first grasp, or None.
        grasped_candidates: every candidate grasped, in order of first grasp (diagnostics;
            only the first counts).
        correct_choice: the choice is the correct candidate.
        success: the choice is correct and the goal held (decided, or at the last substep).
        decided: the outcome can no longer change (success held, or a wrong choice).
        decided_step: control step (1-based) where it was decided, or None.
        success_step: control step where success was decided, or None.
        goal_final: the goal holds at the last substep scored.
        in_zone: candidates inside the answer zone at the last substep scored.
        steps: control steps scored.
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


class EpisodeScorer:
    """Evaluates a task's ``:grasp`` and ``:goal`` every control step of one episode.

    Attributes:
        grasp_expr, goal_expr: the compiled expressions.
        outcome: the :class:`Outcome` so far.
    """

    def __init__(
        self,
        grasp: Expr,
        goal: Expr,
        candidates: tuple[str, ...],
        target: str,
        *,
        path: str = "<task>",
        zones: tuple[str, ...] = (),
    ) -> None:
        """Bind the expressions to an episode.

        Args:
            grasp: the task's ``:grasp`` expression (e.g. ``(Grasped ?c - candidate)``).
            goal: the task's ``:goal`` expression, with ``?answer`` for the correct candidate.
            candidates: candidate names in the signals' N order (``info["candidates"]``).
            target: the correct candidate (``episode.target``).
            path: the task file, for error messages.
            zones: full names of the answer-zone regions (``problem.answer_zone_names``).

        Raises:
            EvalError: when an expression cannot be scored.
        """
        self.candidates = tuple(candidates)
        self.target = target
        self.grasp_expr = CompiledExpression(grasp, self.candidates, target, path=path, zones=zones)
        if self.grasp_expr.free_variable is None:
            raise EvalError(
                f"{path}: the :grasp block must range over the candidates, "
                "e.g. (Grasped ?c - candidate)"
            )
        self.goal_expr = CompiledExpression(goal, self.candidates, target, path=path, zones=zones)
        self.outcome = Outcome()
        self._held = 0  # consecutive substeps the goal held after the correct choice

    @classmethod
    def for_problem(
        cls, problem: Problem, candidates: tuple[str, ...], target: str
    ) -> EpisodeScorer:
        """Build from a parsed task.

        Raises:
            EvalError: when the task lacks a ``:grasp`` or ``:goal`` block.
        """
        if problem.grasp is None or problem.goal is None:
            raise EvalError(f"{problem.path}: scoring needs both a :grasp and a :goal block")
        if is_a2a(problem):  # Act2Answer: the cube on a plate (rsb_mj.a2a.scoring)
            from rsb_mj.a2a.scoring import A2AScorer

            return A2AScorer(tuple(candidates), target, pick_objects(problem)[0])  # type: ignore[return-value]
        return cls(
            problem.grasp,
            problem.goal,
            candidates,
            target,
            path=str(problem.path),
            zones=problem.answer_zone_names,
        )

    def update(self, signals: StepSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step (``info["signals"]`` after ``env.step``).

        Returns:
            The outcome so far; once ``outcome.decided`` is True nothing changes any more.
        """
        if not isinstance(signals, StepSignals):
            signals = StepSignals.from_info(signals, len(self.candidates))
        out = self.outcome
        if out.decided:
            return out
        out.steps += 1
        grasp = self.grasp_expr.witnesses(signals)
        goal = self.goal_expr.holds(self.goal_expr.witnesses(signals))
        hold = SUCCESS_HOLD_STEPS * signals.substeps
        for s in range(signals.substeps):
            for n in np.flatnonzero(grasp[s]):
                name = self.candidates[n]
                if name not in out.grasped_candidates:
                    out.grasped_candidates.append(name)
                if not out.grasped:
                    out.grasped, out.choice, out.grasp_step = True, name, out.steps
                    out.correct_choice = name == self.target
            if out.grasped and not out.correct_choice:
                self._decide(success=False)
                break
            self._held = self._held + 1 if (out.correct_choice and goal[s]) else 0
            if self._held >= hold:
                self._decide(success=True)
                break
        out.goal_final = bool(goal[s])
        out.in_zone = [self.candidates[n] for n in np.flatnonzero(signals.in_zone[s])]
        return out

    def finish(self) -> Outcome:
        """Close the episode (step limit, policy done): an undecided outcome is scored on
        the last substep seen (correct choice and the goal holding)."""
        out = self.outcome
        if not out.decided:
            out.success = out.correct_choice and out.goal_final
            out.decided = True
        return out

    def _decide(self, *, success: bool) -> None:
        out = self.outcome
        out.success, out.decided, out.decided_step = success, True, out.steps
        if success:
            out.success_step = out.steps
