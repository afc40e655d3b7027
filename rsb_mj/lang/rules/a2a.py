"""RSB46x: Act2Answer tasks (a pick cube placed on one of the answer plates).

See :mod:`rsb_mj.lang.a2a` for the constructs. The scorer of A2A tasks
(:mod:`rsb_mj.a2a.scoring`) evaluates exactly the forms these rules accept, so a lint-clean
A2A file scores.
"""

from __future__ import annotations

from rsb_mj.lang import ast
from rsb_mj.lang.a2a import (
    A2A_CHOICES,
    PICK_CATEGORY,
    PLATE_CATEGORY,
    is_a2a,
    is_a2a_source,
    pick_objects,
)
from rsb_mj.lang.rules.base import Context, rule

#: The goal an A2A task may declare, for messages.
A2A_GOAL = "(And (On cube ?answer) (Released cube))"


def _is_answer(arg: ast.Arg) -> bool:
    return isinstance(arg, ast.Variable) and arg.name == "answer"


def _names(atom: ast.Atom) -> list[str]:
    return [a.value for a in atom.args if isinstance(a, ast.Name)]


def a2a_goal_atom(problem: ast.Problem, atom: ast.Atom) -> bool:
    """True when ``atom`` is ``(On PICK ?answer)`` of an A2A ``problem`` (its one scoreable
    use of ``On`` in ``:goal``)."""
    if not is_a2a(problem) or atom.predicate.lower() != "on" or len(atom.args) != 2:
        return False
    first, second = atom.args
    return (
        isinstance(first, ast.Name) and first.value in pick_objects(problem) and _is_answer(second)
    )


@rule(
    "RSB460",
    "a2a-pick-object",
    "error",
    bad="(:question (:source a2a_color) (:choices 2))\n(:objects plate_a plate_b - answer_plate)",
    good="(:objects cube - pick_cube plate_a plate_b - answer_plate)",
)
def a2a_pick_object(ctx: Context) -> None:
    """An Act2Answer task declares exactly one pick object (``- pick_cube``), which is not a
    candidate: the robot answers by putting it on a plate."""
    if not is_a2a(ctx.problem):
        return
    picks = pick_objects(ctx.problem)
    if len(picks) != 1:
        ctx.report(
            "RSB460",
            f"an Act2Answer task needs exactly one '- {PICK_CATEGORY}' object, got {len(picks)}",
            ctx.block_span("objects"),
        )
    for name in picks:
        if name in ctx.candidates:
            ctx.report(
                "RSB460",
                f"pick object {name!r} cannot be a candidate; candidates are the answer plates",
                ctx.block_span("candidates"),
            )


@rule(
    "RSB461",
    "a2a-grasp",
    "error",
    bad="(:grasp (Grasped ?c - candidate))  ; Act2Answer task",
    good="(:grasp (Grasped cube))",
)
def a2a_grasp(ctx: Context) -> None:
    """An Act2Answer task's ``:grasp`` is ``(Grasped PICK)``: GSR counts grasps of the pick
    object (the plates are never grasped)."""
    grasp = ctx.problem.grasp
    if grasp is None or not is_a2a(ctx.problem):
        return
    picks = pick_objects(ctx.problem)
    ok = (
        isinstance(grasp, ast.Atom)
        and grasp.predicate.lower() == "grasped"
        and len(grasp.args) == 1
        and _names(grasp) == list(picks[:1])
    )
    if not ok:
        pick = picks[0] if picks else "cube"
        ctx.report(
            "RSB461",
            f":grasp of an Act2Answer task must be (Grasped {pick})",
            ctx.block_span("grasp"),
            fix=f"(Grasped {pick})",
        )


@rule(
    "RSB462",
    "a2a-goal",
    "error",
    bad="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))  ; Act2Answer task",
    good="(:goal (And (On cube ?answer) (Released cube)))",
)
def a2a_goal(ctx: Context) -> None:
    """An Act2Answer task's ``:goal`` is ``(On PICK ?answer)``, optionally with
    ``(Released PICK)`` under ``And``: the cube rests on the plate of the correct answer."""
    goal = ctx.problem.goal
    if goal is None or not is_a2a(ctx.problem):
        return
    picks = pick_objects(ctx.problem)
    pick = picks[0] if picks else "cube"
    terms = goal.terms if isinstance(goal, ast.And) else (goal,)
    on = [t for t in terms if isinstance(t, ast.Atom) and a2a_goal_atom(ctx.problem, t)]
    rest = [
        t
        for t in terms
        if not (isinstance(t, ast.Atom) and a2a_goal_atom(ctx.problem, t))
        and not (
            isinstance(t, ast.Atom)
            and t.predicate.lower() == "released"
            and _names(t) == [pick]
            and len(t.args) == 1
        )
    ]
    if len(on) != 1 or rest:
        ctx.report(
            "RSB462",
            f":goal of an Act2Answer task must be (On {pick} ?answer), optionally with "
            f"(Released {pick}) under And",
            ctx.block_span("goal"),
            fix=f"(And (On {pick} ?answer) (Released {pick}))",
        )


@rule(
    "RSB463",
    "a2a-plates",
    "error",
    bad="(:question (:source a2a_color) (:choices 2))\n(:candidates block_a block_b)",
    good="(:candidates plate_a plate_b)  ; each '- answer_plate'",
)
def a2a_plates(ctx: Context) -> None:
    """An Act2Answer task's candidates are answer plates (``- answer_plate``), one per
    option, and its choice count is one A2A serves (2); answer plates and pick objects
    belong to Act2Answer sources only."""
    p = ctx.problem
    q = p.question
    if not is_a2a(p):
        for decl in p.objects:
            if decl.category in (PLATE_CATEGORY, PICK_CATEGORY) and ctx.is_rsb:
                ctx.report(
                    "RSB463",
                    f"object {decl.name!r} ({decl.category}) needs an Act2Answer source "
                    "(:source a2a_...)",
                    decl.span,
                )
        return
    if q is not None and not is_a2a_source(q.source):
        ctx.report(
            "RSB463",
            f"a task with a '- {PICK_CATEGORY}' object needs an Act2Answer :source (a2a_...)",
            q.span,
        )
    if q is not None and q.choices is not None and q.choices not in A2A_CHOICES:
        ctx.report(
            "RSB463",
            f":choices {q.choices:g} for an Act2Answer source; valid choices: "
            + ", ".join(map(str, A2A_CHOICES)),
            q.span,
        )
    for name in ctx.candidates:
        decl = ctx.objects.get(name)
        if decl is not None and decl.category != PLATE_CATEGORY:
            ctx.report(
                "RSB463",
                f"candidate {name!r} ({decl.category}) must be an '{PLATE_CATEGORY}' in an "
                "Act2Answer task",
                ctx.block_span("candidates"),
            )
    if q is not None and q.choices is not None and len(ctx.candidates) != q.choices:
        ctx.report(
            "RSB463",
            f"(:choices {q.choices:g}) needs {q.choices:g} answer plates, got "
            f"{len(ctx.candidates)}",
            ctx.block_span("candidates"),
        )
