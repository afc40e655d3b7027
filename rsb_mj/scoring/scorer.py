"""Score one episode from the environment's signals: the goal held, and the choice.

One scorer for every task (:class:`EpisodeScorer`): the task's ``:goal`` conjunction read
every control step, each source's predicate semantics applied where its signals are made,
with a **choice tracker** (:mod:`rsb_mj.scoring.outcome`) for a question task, whose goal
places ``?answer``, bound per episode to a candidate (docs/protocol.md).

* A goal task (LIBERO / VLA-Arena: no question): the environment reports each relation's
  truth (:class:`~rsb_mj.scoring.signals.GoalSignals`); **success** is the conjunction
  holding for :data:`~rsb_mj.scoring.outcome.HOLD_STEPS` consecutive control steps
  (decided at the last of them); an episode that ends otherwise fails, and
  :attr:`Outcome.void_reason` names each relation's truth at its last step (``goal not
  held (On apple_1 plate_1: False)``). No candidate, no choice: ``choice`` stays None and
  ``grasped`` False.
* A question task: the task file's ``:grasp`` and ``:goal`` are compiled over the recorded
  signals (:class:`~rsb_mj.scoring.expression.CompiledExpression`) and their truths go to
  the task's choice tracker:

  * ``(:grasp (Grasped ?c - candidate))`` (RSB: the candidate moves): the **choice** is the
    first candidate grasped; a wrong one fails the episode at once. **Success** needs the
    correct choice and the ``:goal`` for the answer (``(And (In ?answer zone) (Released
    ?answer))``) holding for :data:`SUCCESS_HOLD_STEPS` control steps (0.5 s at 20 Hz), or
    at the last substep of an episode cut before that (:meth:`EpisodeScorer.finish`).
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
from rsb_mj.scoring.outcome import (
    HOLD_STEPS,
    ChoiceRule,
    FirstGrasp,
    FirstPlacement,
    Outcome,
)
from rsb_mj.scoring.signals import GoalSignals, SignalPlan, StepSignals


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
    """Scores one episode: the task's ``:goal`` held, through the choice tracker of a
    question task (module docstring).

    Attributes:
        candidates: the candidate axis N (empty for a goal task).
        target: the candidate ``?answer`` is bound to (``""`` for a goal task).
        grasp_expr, goal_expr: a question task's compiled expressions (None for a goal task,
            whose relations the environment evaluates).
        plan: the signals they read, over which objects (None for a goal task).
        rule: the choice tracker (:class:`FirstGrasp` or :class:`FirstPlacement`), None for
            a goal task: no choice to track.
        hold_steps: control steps a goal task's conjunction must hold without a break.
        held: consecutive control steps it has held up to the last one scored.
        outcome: the :class:`Outcome` so far.
    """

    grasp_expr: CompiledExpression | None
    goal_expr: CompiledExpression | None
    plan: SignalPlan | None
    rule: ChoiceRule | None

    def __init__(
        self,
        grasp: Expr | None = None,
        goal: Expr | None = None,
        candidates: tuple[str, ...] = (),
        target: str = "",
        *,
        path: str = "<task>",
        zones: tuple[str, ...] = (),
        movers: tuple[str, ...] = (),
        hold_steps: int = HOLD_STEPS,
    ) -> None:
        """Bind the scorer to an episode: a question task's ``?answer`` to ``target``, or
        (without ``grasp`` and ``goal``) a goal task's relations as its environment
        reports them.

        Args:
            grasp: a question task's ``:grasp`` expression (e.g. ``(Grasped ?c -
                candidate)``); None for a goal task.
            goal: its ``:goal`` expression, with ``?answer`` for the correct candidate; None
                for a goal task.
            candidates: candidate names in the signals' N order (``info["candidates"]``).
            target: the correct candidate (``episode.target``).
            path: the task file, for error messages.
            zones: full names of the answer-zone regions (``problem.answer_zone_names``).
            movers: the task's objects other than the candidates (``cube``), which an atom
                may name as what moves.
            hold_steps: a goal task's hold (control steps).

        Raises:
            EvalError: when an expression cannot be scored or ``target`` is no candidate.
        """
        self.candidates = tuple(candidates)
        self.target = target
        self.hold_steps = hold_steps
        self.held = 0
        self.outcome = Outcome()
        self._last: GoalSignals | None = None
        self.grasp_expr = self.goal_expr = self.plan = self.rule = None
        if grasp is None and goal is None:
            return
        if grasp is None or goal is None:
            raise EvalError(f"{path}: scoring needs both a :grasp and a :goal block")
        if target not in self.candidates:
            raise EvalError(
                f"answer {target!r} is not a candidate; valid: {', '.join(self.candidates)}"
            )
        self.grasp_expr, self.goal_expr, self.plan = compile_task(
            grasp, goal, self.candidates, movers=movers, path=path, zones=zones
        )
        if self.grasp_expr.variable is not None:
            self.rule = FirstGrasp(self.candidates, target)
        else:
            movers_named = subjects((grasp,), ())  # no candidate axis: the named subjects
            self.rule = FirstPlacement(self.candidates, target, movers_named)

    @classmethod
    def for_problem(
        cls, problem: Problem, candidates: tuple[str, ...], target: str
    ) -> EpisodeScorer:
        """Build a question task's scorer from the parsed task.

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

    def update(self, signals: StepSignals | GoalSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step (``info["signals"]`` after ``env.step``).

        Returns:
            The outcome so far; once ``outcome.decided`` is True nothing changes any more.
        """
        out = self.outcome
        if out.decided:
            return out
        if self.rule is None:
            if not isinstance(signals, GoalSignals):
                raise EvalError(
                    "a goal task's scorer reads GoalSignals (a goal environment's "
                    f"info['signals']), got {type(signals).__name__}"
                )
            out.steps += 1
            self._hold(out, signals)
            return out
        assert self.plan is not None and self.grasp_expr is not None and self.goal_expr
        if not isinstance(signals, StepSignals):
            plan = self.plan
            signals = StepSignals.from_info(
                signals, len(plan.objects), len(plan.candidates), names=plan.names
            )
        out.steps += 1
        grasp = self.grasp_expr.witnesses(signals)
        goal = self.goal_expr.witnesses(signals)
        if self.goal_expr.variable not in (None, ANSWER_VARIABLE):  # "some candidate ..."
            goal = self.goal_expr.holds(goal)[:, None].repeat(len(self.candidates), axis=1)
        self.rule.update(out, grasp, goal, self.goal_expr.place_witnesses(signals))
        return out

    def _hold(self, out: Outcome, signals: GoalSignals) -> None:
        """A goal task's step: success once the conjunction has held ``hold_steps``
        control steps in a row."""
        self._last = signals
        holds = signals.holds
        self.held = self.held + 1 if holds else 0
        out.goal_final = holds
        if self.held >= self.hold_steps:
            out.success = out.decided = True
            out.decided_step = out.success_step = out.steps

    def success_now(self) -> bool:
        """Whether the episode is a success if it ends now: the decided outcome, else what
        :meth:`finish` would find on the last substep seen (a goal task's undecided episode
        is no success)."""
        out = self.outcome
        if out.decided or self.rule is None:
            return out.success
        return self.rule.would_succeed(out)

    def finish(self) -> Outcome:
        """Close the episode (step limit, policy done): an undecided question episode is
        scored on the last substep seen; an undecided goal episode failed, its
        ``void_reason`` naming each relation's truth at the last step scored."""
        out = self.outcome
        if out.decided:
            return out
        if self.rule is not None:
            self.rule.finish(out)
            return out
        out.decided = True
        out.decided_step = out.steps or None
        last = self._last.describe() if self._last is not None else "never stepped"
        out.void_reason = f"goal not held ({last})"
        return out


class Pacing:
    """A sealed run's pacing of a question task's episode (docs/protocol.md): one scorer per
    candidate, each taking it for the answer, all updated every control step, so that the
    work per step does not depend on the answer; the episode's own scorer is the answer's,
    and the chosen candidate's decides when the episode ends (a wrong choice runs on as a
    right one would).

    Attributes:
        scorers: candidate -> the scorer taking it for the answer.
        scorer: the episode's own (``target``'s).
    """

    def __init__(self, problem: Problem, candidates: tuple[str, ...], target: str) -> None:
        """One scorer per candidate of an episode of the question task ``problem``.

        Raises:
            EvalError: when the task cannot be scored or ``target`` is no candidate.
        """
        self.scorers = {c: EpisodeScorer.for_problem(problem, candidates, c) for c in candidates}
        if target not in self.scorers:
            raise EvalError(f"answer {target!r} is not a candidate; valid: {', '.join(candidates)}")
        self.scorer = self.scorers[target]

    def update(self, signals: StepSignals | Mapping[str, Any]) -> Outcome:
        """Score one control step with every scorer; the episode's outcome so far."""
        for scorer in self.scorers.values():
            scorer.update(signals)
        return self.scorer.outcome

    def ended(self) -> bool:
        """Whether an episode whose outcome is decided ends now: when the scorer taking its
        choice for the answer has decided too; a decision without a choice ends at once,
        whatever the answer."""
        choice = self.scorer.outcome.choice
        if choice is None or choice not in self.scorers:
            return True
        return self.scorers[choice].outcome.decided


def task_scorer(problem: Problem, candidates: tuple[str, ...], target: str) -> EpisodeScorer:
    """The scorer of one episode of ``problem`` (the one place that asks the task's family,
    :func:`~rsb_mj.lang.task.task_family`): a question task's binds ``?answer`` to
    ``target`` and tracks the choice (the first candidate grasped, or for Act2Answer the
    first one the goal holds for; a wrong first grasp decides a failure at once), the grasp
    (GSR, ``grasp_step``, ``grasped_candidates``, ``in_zone``), and scores an episode cut
    before the hold on its last substep; a goal task's scores its ``:goal`` held, with no
    candidate and no choice (``target`` is ``""``).

    Raises:
        EvalError: when a question task's expressions cannot be scored or ``target`` is no
            candidate.
    """
    if task_family(problem) == "goal":
        return EpisodeScorer()
    return EpisodeScorer.for_problem(problem, candidates, target)


__all__ = ["EpisodeScorer", "Pacing", "compile_task", "signal_plan", "task_scorer"]
