"""RSB413, RSB420: the goal and the grasp of an rsb task depend on the answer.

Success must need the candidate of the correct option (``?answer`` in ``:goal``), and
``:grasp`` must grasp what the goal moves: any candidate (``?c - candidate``), or the named
object the goal moves onto the chosen candidate (:func:`rsb_mj.lang.goal.named_movers`).
"""

from __future__ import annotations

from rsb_mj.lang.expr import Expr, Name, Variable, walk_atoms
from rsb_mj.lang.goal import named_movers
from rsb_mj.lang.rules.base import Context, rule


def _mentions_answer(expr: Expr | None) -> bool:
    return any(
        isinstance(a, Variable) and a.name == "answer"
        for atom in walk_atoms(expr)
        for a in atom.args
    )


@rule(
    "RSB413",
    "goal-ignores-answer",
    "error",
    bad="(:goal (And (In block_a table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def goal_ignores_answer(ctx: Context) -> None:
    """An rsb goal that never mentions ``?answer`` (the candidate of the correct option): it
    would be reached without answering the question, or by a fixed object regardless of
    the question."""
    if ctx.is_rsb and ctx.problem.goal_terms and not _mentions_answer(ctx.problem.goal):
        ctx.report(
            "RSB413",
            ":goal never mentions ?answer, so success does not depend on the question",
            ctx.block_span("goal"),
            fix="(And (In ?answer table_answer_zone) (Released ?answer))",
        )


@rule(
    "RSB420",
    "grasp-not-mover",
    "error",
    bad="(:grasp (Grasped block_a))",
    good="(:grasp (Grasped ?c - candidate))",
)
def grasp_not_mover(ctx: Context) -> None:
    """A ``:grasp`` that does not grasp what the goal moves. When the goal moves the chosen
    candidate (``(In ?answer ZONE)``), ``:grasp`` ranges over the candidates
    (``?c - candidate``): GSR counts a grasp of *any* candidate, so a fixed object here
    would make GSR and nSG meaningless. When the goal moves a named object onto the chosen
    candidate (``(On cube ?answer)``, :func:`rsb_mj.lang.goal.named_movers`), ``:grasp``
    names that object: ``(Grasped cube)``."""
    grasp = ctx.problem.grasp
    if grasp is None:
        return
    movers = named_movers(ctx.problem)
    args = [a for atom in walk_atoms(grasp) for a in atom.args]
    if movers:
        if not any(isinstance(a, Name) and a.value in movers for a in args):
            ctx.report(
                "RSB420",
                f":grasp must grasp what the goal moves, e.g. (Grasped {movers[0]})",
                ctx.block_span("grasp"),
                fix=f"(Grasped {movers[0]})",
            )
        return
    typed = any(isinstance(a, Variable) and a.kind == "candidate" for a in args)
    if not typed:
        ctx.report(
            "RSB420",
            ":grasp must range over the candidates, e.g. (Grasped ?c - candidate)",
            ctx.block_span("grasp"),
            fix="(Grasped ?c - candidate)",
        )
