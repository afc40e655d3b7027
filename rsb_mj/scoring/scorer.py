"""Score one episode from the environment's signals: one attempt, choice, success.

The protocol (stated in docs/protocol.md): the task names what moves and ``?answer`` binds a
candidate. :class:`EpisodeScorer` evaluates the task file's ``:grasp`` and ``:goal`` every
control step and hands their truth to the task's choice rule (:mod:`rsb_mj.scoring.outcome`):

* ``(:grasp (Grasped ?c - candidate))`` (RSB: the candidate moves): the **choice** is the
  first candidate grasped; a wrong one fails the episode at once. **Success** needs the
  correct choice and the ``:goal`` for the answer (``(And (In ?answer zone) (Released
  ?answer))``) holding for :data:`SUCCESS_HOLD_STEPS` control steps (0.5 s at 20 Hz), or at
  the last substep of an episode cut before that (:meth:`EpisodeScorer.finish`).
* ``(:grasp (Grasped cube))`` with ``(:goal (And (On cube ?answer) (Released cube)))``
  (Act2Answer: the cube moves): GSR is the cube grasped; the **choice** is the first
  candidate the goal holds for, 0.5 s without a break (the released cube resting on a
  plate); **success** needs the grasp and the correct choice.

So TSR <= GSR, nSG stays at most 1, and a knock-in, a push, a second try or a placement
after a wrong first choice never scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Expr
from rsb_mj.lang.goal import ANSWER_VARIABLE
from rsb_mj.lang.task import task_family
from rsb_mj.scoring.expression import CompiledExpression, subjects
from rsb_mj.scoring.goal_scorer import GoalScorer
from rsb_mj.scoring.outcome import (
    ChoiceRule,
    FirstGrasp,
    FirstPlacement,
    Outcome,
)
from rsb_mj.scoring.signals import SignalPlan, StepSignals


def compile_task(
    grasp: Expr,
    goal: Expr,
    candidates: tuple[str, ...],
    *,
    movers: tuple[str, ...] = (),
    path: str = "<task>",
    zones: tuple[str, ...] = (),
) -> tuple[CompiledExpression, CompiledExpression, SignalPlan]:
    """Compile a task's ``:grasp`` and ``:goal`` on one object axis.

    Returns:
        (grasp, goal, plan): the compiled expressions and the signals they read.

    Raises:
        EvalError: when an expression cannot be scored, or the ``:grasp`` uses ``?answer``
            or names what moves while the ``:goal`` has no ``?answer`` to place it on.
    """
    candidates = tuple(candidates)
    objects = subjects((grasp, goal), candidates)
    kw: dict[str, Any] = {"objects": objects, "movers": movers, "path": path, "zones": zones}
    grasp_expr = CompiledExpression(grasp, candidates, **kw)
    goal_expr = CompiledExpression(goal, candidates, **kw)
    if grasp_expr.variable == ANSWER_VARIABLE:
        raise EvalError(
            f"{path}: the :grasp block cannot use ?answer; it ranges over the candidates, "
            "e.g. (Grasped ?c - candidate), or names the object that moves, e.g. "
            "(Grasped cube)"
        )
    if grasp_expr.variable is None and goal_expr.variable != ANSWER_VARIABLE:
        raise EvalError(
            f"{path}: the :grasp block names what moves, so the :goal must say where with "
            "?answer, e.g. (On cube ?answer); or range the :grasp over the candidates, "
            "e.g. (Grasped ?c - candidate)"
        )
    names = tuple(grasp_expr.signals | goal_expr.signals)
    return grasp_expr, goal_expr, SignalPlan(objects, candidates, names)


def _movers(problem: Problem) -> tuple[str, ...]:
    """The task's declared objects that are not candidates (a subject may name them)."""
    candidates = set(problem.candidates)
    return tuple(d.name for d in problem.objects if d.name not in candidates)


def signal_plan(problem: Problem) -> SignalPlan:
    """The signals an environment of ``problem`` records: those its compiled ``:grasp`` and
    ``:goal`` declare, or the candidates' base signals for a task with nothing to score.

    Raises:
        EvalError: when the expressions cannot be scored.
    """
    candidates = tuple(problem.candidates)
    if problem.grasp is None or problem.goal is None:
        return SignalPlan.of_candidates(candidates)
    return compile_task(
        problem.grasp,
        problem.goal,
        candidates,
        movers=_movers(problem),
        path=str(problem.path),
        zones=problem.answer_zone_names,
    )[2]


class EpisodeScorer:
    """Evaluates a task's ``:grasp`` and ``:goal`` every control step of one episode.

    Attributes:
        grasp_expr, goal_expr: the compiled expressions.
        plan: the signals they read, over which objects.
        rule: the task's choice rule (:class:`FirstGrasp` or :class:`FirstPlacement`).
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
        movers: tuple[str, ...] = (),
    ) -> None:
        """Bind the expressions to an episode.

        Args:
            grasp: the task's ``:grasp`` expression (e.g. ``(Grasped ?c - candidate)``).
            goal: the task's ``:goal`` expression, with ``?answer`` for the correct candidate.
            candidates: candidate names in the signals' N order (``info["candidates"]``).
            target: the correct candidate (``episode.target``).
            path: the task file, for error messages.
            zones: full names of the answer-zone regions (``problem.answer_zone_names``).
            movers: the task's objects other than the candidates (``cube``), which an atom
                may name as what moves.

        Raises:
            EvalError: when an expression cannot be scored or ``target`` is no candidate.
        """
        self.candidates = tuple(candidates)
        if target not in self.candidates:
            raise EvalError(
                f"answer {target!r} is not a candidate; valid: {', '.join(self.candidates)}"
            )
        self.target = target
        self.grasp_expr, self.goal_expr, self.plan = compile_task(
            grasp, goal, self.candidates, movers=movers, path=path, zones=zones
        )
        self.rule: ChoiceRule
        if self.grasp_expr.variable is not None:
            self.rule = FirstGrasp(self.candidates, target)
        else:
            movers_named = subjects((grasp,), ())  # no candidate axis: the named subjects
            self.rule = FirstPlacement(self.candidates, target, movers_named)
        self.outcome = Outcome()

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
        return cls(
            problem.grasp,
            problem.goal,
            candidates,
            target,
            path=str(problem.path),
            zones=problem.answer_zone_names,
            movers=_movers(problem),
        )

    def update(self, signals: StepSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step (``info["signals"]`` after ``env.step``).

        Returns:
            The outcome so far; once ``outcome.decided`` is True nothing changes any more.
        """
        if not isinstance(signals, StepSignals):
            plan = self.plan
            signals = StepSignals.from_info(
                signals, len(plan.objects), len(plan.candidates), names=plan.names
            )
        out = self.outcome
        if out.decided:
            return out
        out.steps += 1
        grasp = self.grasp_expr.witnesses(signals)
        goal = self.goal_expr.witnesses(signals)
        if self.goal_expr.variable not in (None, ANSWER_VARIABLE):  # "some candidate ..."
            goal = self.goal_expr.holds(goal)[:, None].repeat(len(self.candidates), axis=1)
        self.rule.update(out, grasp, goal, self.goal_expr.place_witnesses(signals))
        return out

    def success_now(self) -> bool:
        """Whether the episode is a success if it ends now: the decided outcome, else what
        :meth:`finish` would find on the last substep seen."""
        out = self.outcome
        return out.success if out.decided else self.rule.would_succeed(out)

    def finish(self) -> Outcome:
        """Close the episode (step limit, policy done): an undecided outcome is scored on
        the last substep seen."""
        out = self.outcome
        if not out.decided:
            self.rule.finish(out)
        return out


def task_scorer(
    problem: Problem, candidates: tuple[str, ...], target: str
) -> EpisodeScorer | GoalScorer:
    """The scorer of one episode of ``problem``, chosen by what the task declares (the one
    place that looks): a question task's (a ``(:question ...)`` block) is an
    :class:`EpisodeScorer` binding ``?answer`` to ``target``; a goal task's is a
    :class:`~rsb_mj.scoring.goal_scorer.GoalScorer` (the ``:goal`` held; no candidate, no
    choice: ``target`` is ``""``).

    A question task's ``:goal`` (``(And (In ?answer zone) (Released ?answer))``) is a goal
    with ``?answer`` bound, but its scorer is not the goal scorer over that binding: it
    also scores the choice (the first candidate grasped, or for Act2Answer the first one
    the goal holds for; a wrong first grasp decides a failure at once), the grasp (GSR,
    ``grasp_step``, ``grasped_candidates``, ``in_zone``), and an episode cut before the
    hold is scored on its last substep; the records read all of these.

    Raises:
        EvalError: when a question task's expressions cannot be scored or ``target`` is no
            candidate.
    """
    if task_family(problem) == "goal":
        return GoalScorer()
    return EpisodeScorer.for_problem(problem, candidates, target)


__all__ = ["EpisodeScorer", "compile_task", "signal_plan", "task_scorer"]
