"""Score one episode from the environment's signals: grasp, choice, success.

When success is decided (documented choice): **latched at the first physics substep where
the goal holds**, after the correct candidate has been grasped. This is what users of
LIBERO (the eval loop stops at the first ``done``) and RoboTwin (success latched at any
substep) expect; a later knock-over does not undo it, and the runner ends the episode there.
The final state is still recorded (``goal_final``) for users who want the stricter reading.

Requiring a grasp of the correct candidate before the goal keeps TSR a subset of GSR (the
paper's TSR is "grasps the correct answer block"), so nSG stays at most 1: pushing a block
into the zone without grasping it is not a success.

The policy's *choice* is the first candidate grasped (RSB's error analysis reads it as the
selected target). Two candidates first grasped in the same substep: the first in candidate
order is the choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Expr
from rsb_mj.scoring.expression import CompiledExpression
from rsb_mj.scoring.signals import StepSignals


@dataclass
class Outcome:
    """What scoring found in one episode so far.

    Attributes:
        grasped: some candidate was grasped (the GSR flag).
        choice: first candidate grasped (the policy's choice), or None.
        grasp_step: control step (1-based) of the first grasp, or None.
        grasped_candidates: every candidate grasped, in order of first grasp.
        target_grasped: the correct candidate was grasped at some point.
        success: the goal held after a grasp of the correct candidate (the TSR flag).
        success_step: control step (1-based) where success was latched, or None.
        goal_final: the goal holds at the last substep scored.
        in_zone: candidates inside the answer zone at the last substep scored.
        steps: control steps scored.
    """

    grasped: bool = False
    choice: str | None = None
    grasp_step: int | None = None
    grasped_candidates: list[str] = field(default_factory=list)
    target_grasped: bool = False
    success: bool = False
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
    ) -> None:
        """Bind the expressions to an episode.

        Args:
            grasp: the task's ``:grasp`` expression (e.g. ``(Grasped ?c - candidate)``).
            goal: the task's ``:goal`` expression, with ``?answer`` for the correct candidate.
            candidates: candidate names in the signals' N order (``info["candidates"]``).
            target: the correct candidate (``episode.target``).
            path: the task file, for error messages.

        Raises:
            EvalError: when an expression cannot be scored.
        """
        self.candidates = tuple(candidates)
        self.target = target
        self.grasp_expr = CompiledExpression(grasp, self.candidates, target, path=path)
        if self.grasp_expr.free_variable is None:
            raise EvalError(
                f"{path}: the :grasp block must range over the candidates, "
                "e.g. (Grasped ?c - candidate)"
            )
        self.goal_expr = CompiledExpression(goal, self.candidates, target, path=path)
        self.outcome = Outcome()

    @classmethod
    def for_problem(cls, problem: Any, candidates: tuple[str, ...], target: str) -> EpisodeScorer:
        """Build from a parsed task (``rsb_mj.lang`` ``Problem``).

        Raises:
            EvalError: when the task lacks a ``:grasp`` or ``:goal`` block.
        """
        path = getattr(problem, "path", "<task>")
        if problem.grasp is None or problem.goal is None:
            raise EvalError(f"{path}: scoring needs both a :grasp and a :goal block")
        return cls(problem.grasp, problem.goal, candidates, target, path=path)

    def update(self, signals: StepSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step (``info["signals"]`` after ``env.step``).

        Returns:
            The outcome so far; ``outcome.success`` turns True at most once and stays.
        """
        if not isinstance(signals, StepSignals):
            signals = StepSignals.from_info(signals, len(self.candidates))
        out = self.outcome
        out.steps += 1
        grasp = self.grasp_expr.witnesses(signals)
        goal = self.goal_expr.holds(self.goal_expr.witnesses(signals))
        t = self.candidates.index(self.target)
        for s in range(signals.substeps):
            for n in np.flatnonzero(grasp[s]):
                name = self.candidates[n]
                if name not in out.grasped_candidates:
                    out.grasped_candidates.append(name)
                if not out.grasped:
                    out.grasped, out.choice, out.grasp_step = True, name, out.steps
            out.target_grasped = out.target_grasped or bool(grasp[s, t])
            if not out.success and out.target_grasped and goal[s]:
                out.success, out.success_step = True, out.steps
        out.goal_final = bool(goal[-1])
        out.in_zone = [self.candidates[n] for n in np.flatnonzero(signals.in_zone[-1])]
        return out
