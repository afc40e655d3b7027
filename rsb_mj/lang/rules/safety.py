"""RSB512-RSB513: what the rsb runtime needs of ``:cost`` terms and moving objects.

Like the RSB5xx rules (:mod:`rsb_mj.lang.rules.runtime_layout` and its neighbours:
lint-clean implies runs), each rule stands for an error
:class:`rsb_mj.scoring.cost.CostMeter` or :mod:`rsb_mj.scene.motion` would raise on an rsb
task, read from the same facts without MuJoCo.
"""

from __future__ import annotations

import math

from rsb_mj.lang.expr import Arg, Name, Number, Variable, walk_atoms
from rsb_mj.lang.goal import ANSWER_VARIABLE
from rsb_mj.lang.motion import read_moving_objects
from rsb_mj.lang.predicates import PREDICATES, RSB_COST
from rsb_mj.lang.rules.base import Context, rule
from rsb_mj.lang.rules.motion import _start_xy


def _argument_problem(ctx: Context, arg: Arg, kind: str) -> str | None:
    if kind == "number":
        if isinstance(arg, Number) and arg.value >= 0:
            return None
        return "must be a number >= 0"
    if isinstance(arg, Variable):
        if arg.name == ANSWER_VARIABLE and arg.kind is None:
            return None
        return "takes ?answer or a name; a variable ranging over candidates cannot be costed"
    if not isinstance(arg, Name):
        return None  # RSB206
    region = ctx.regions.get(arg.value)
    if kind == "place" and region is not None and not region.ranges:
        return "is a region without :ranges, so nothing can rest on it"
    return None  # a declared name, or one RSB206 / RSB207 report


@rule(
    "RSB512",
    "uncostable-argument",
    "error",
    bad="(:cost (And (Fall ?c - candidate) (CheckDistance block_a block_b -1)))",
    good="(:cost (And (Fall ?answer) (CheckDistance block_a block_b 0.05)))",
    applies_to="question",
)
def uncostable_argument(ctx: Context) -> None:
    """In an rsb task, an argument the cost evaluator cannot read: thresholds (metres,
    newtons) are numbers >= 0; a variable is ``?answer`` (bound to the correct candidate),
    never a typed variable (``?c - candidate``) ranging over candidates; ``NotOn``'s place,
    when a region, has ``:ranges``. (Regions where an object is needed are RSB206.)"""
    for expr in ctx.problem.cost_terms or ():
        for atom in walk_atoms(expr):
            info = PREDICATES.get(atom.predicate.lower())
            if info is None or info.name not in RSB_COST or info.args is None:
                continue  # RSB204 / RSB213
            if len(atom.args) != len(info.args):
                continue  # RSB205
            for i, (arg, kind) in enumerate(zip(atom.args, info.args, strict=True), start=1):
                problem = _argument_problem(ctx, arg, kind)
                if problem is not None:
                    ctx.report(
                        "RSB512",
                        f"argument {i} of {info.name!r} in :cost {problem}",
                        arg.span if arg.span.line else atom.span,
                    )


@rule(
    "RSB513",
    "circle-without-radius",
    "error",
    bad="(lane (:target table) (:ranges ((-0.1 0.25 0.1 0.35))))\n"
    "(cart_1 (:motion_type circle) (:motion_center (0 0.3 0)) (:motion_period 60))",
    good="(lane (:target table) (:ranges ((-0.1 0.25 0.1 0.35))))\n"
    "(cart_1 (:motion_type circle) (:motion_center (0 0.2 0)) (:motion_period 60))",
    applies_to="question",
)
def circle_without_radius(ctx: Context) -> None:
    """In an rsb task, a circle motion whose center (x, y) is the object's start place (the
    center of its ``:init`` region): the radius is the distance between them, so the object
    would not move, and the scene refuses it."""
    motions, _ = read_moving_objects(ctx.problem)
    for motion in motions:
        start = _start_xy(ctx, motion.name)
        if motion.type != "circle" or start is None:
            continue
        if math.hypot(start[0] - motion.center[0], start[1] - motion.center[1]) < 1e-6:
            ctx.report(
                "RSB513",
                f"the circle of {motion.name!r} is centered on its start place "
                f"({start[0]:g}, {start[1]:g}); move :motion_center or the :init region",
                motion.span,
            )
