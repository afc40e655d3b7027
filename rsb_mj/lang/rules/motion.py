"""RSB424-RSB429: ``(:moving_objects ...)`` declarations (see :mod:`rsb_mj.lang.motion`)."""

from __future__ import annotations

import math

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.expr import Name, walk_atoms
from rsb_mj.lang.motion import Motion, read_moving_objects
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.table_top import TABLE_HALF_SIZE

_GOOD = "(:moving_objects (cart_1 (:motion_type linear) (:motion_period 40)))"


@rule(
    "RSB424",
    "moving-object-not-declared",
    "error",
    bad="(:objects cart_1 - toy_car)\n(:moving_objects (cat_1 (:motion_type linear) ...))",
    good="(:objects cart_1 - toy_car)\n" + _GOOD,
)
def moving_object_not_declared(ctx: Context) -> None:
    """A moving object must be a declared object (fixtures do not move): the scene makes that
    object's body kinematic and drives it along its motion."""
    motions, _ = read_moving_objects(ctx.problem)
    for motion in motions:
        if motion.name in ctx.objects:
            continue
        what = "a fixture" if motion.name in ctx.fixtures else "not a declared object"
        ctx.report(
            "RSB424",
            f"moving object {motion.name!r} is {what}; valid choices: " + choices_text(ctx.objects),
            motion.span,
            fix=did_you_mean(motion.name, ctx.objects),
        )


@rule(
    "RSB425",
    "moving-candidate",
    "error",
    bad="(:candidates block_a block_b)\n(:moving_objects (block_a (:motion_type linear) ...))",
    good="(:candidates block_a block_b)\n" + _GOOD,
    applies_to="question",
)
def moving_candidate(ctx: Context) -> None:
    """In an rsb task a candidate cannot move on its own: the policy must be able to pick it
    up, and a kinematic body cannot be grasped. Move a distractor or an obstacle instead."""
    motions, _ = read_moving_objects(ctx.problem)
    for motion in motions:
        if motion.name in ctx.candidates:
            ctx.report(
                "RSB425", f"candidate {motion.name!r} cannot be a moving object", motion.span
            )


@rule(
    "RSB426",
    "unknown-motion-type",
    "error",
    bad="(cart_1 (:motion_type zigzag) (:motion_period 40))",
    good="(cart_1 (:motion_type linear) (:motion_period 40))",
)
def unknown_motion_type(ctx: Context) -> None:
    """A moving object without ``(:motion_type T)`` or with a type other than linear, circle,
    waypoint, parabolic (VLA-Arena raises at run time; rsb says so when linting)."""
    _report(ctx, "RSB426")


@rule(
    "RSB427",
    "bad-moving-object",
    "error",
    bad="(cart_1 (:motion_type linear) (:motion_period 40) (:motion_radius 0.2))",
    good="(cart_1 (:motion_type linear) (:motion_period 40) (:motion_travel_dist 0.2))",
)
def bad_moving_object(ctx: Context) -> None:
    """A moving-object entry that is not ``(NAME (:motion_KEY VALUE) ...)``, a key given
    twice, an object declared moving twice, or a key its motion type does not read (VLA-Arena
    silently ignores such keys, e.g. ``:motion_radius`` or ``:motion_speed``)."""
    _report(ctx, "RSB427")


@rule(
    "RSB428",
    "bad-motion-value",
    "error",
    bad="(cart_1 (:motion_type linear) (:motion_period 1) (:motion_direction (0 0 0)))",
    good="(cart_1 (:motion_type linear) (:motion_period 40) (:motion_direction (1 0 0)))",
)
def bad_motion_value(ctx: Context) -> None:
    """A motion value of the wrong form or range (periods and dt > 0, a linear period of at
    least 2 steps, distances and speeds >= 0, vectors of three numbers, a non-zero direction,
    at least two waypoints), or a key the motion type needs that is missing."""
    _report(ctx, "RSB428")


def _report(ctx: Context, code: str) -> None:
    _, issues = read_moving_objects(ctx.problem)
    for issue in issues:
        if issue.code == code:
            ctx.report(code, issue.message, issue.span)


def _start_xy(ctx: Context, name: str) -> tuple[float, float] | None:
    """Center of the region ``:init`` places ``name`` in (where the scene starts it)."""
    for expr in ctx.problem.init:
        for atom in walk_atoms(expr):
            args = atom.args
            if (
                atom.predicate.lower() == "on"
                and len(args) == 2
                and isinstance(args[0], Name)
                and isinstance(args[1], Name)
                and args[0].value == name
            ):
                region = ctx.regions.get(args[1].value)
                if region is None or not region.ranges:
                    return None
                r = region.ranges[0]
                return ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)
    return None


def _path_points(motion: Motion, start: tuple[float, float] | None) -> list[tuple[float, float]]:
    """Table-frame xy points bounding the motion's path (parabolic: none)."""
    if motion.type == "waypoint":
        return [(p[0], p[1]) for p, _ in motion.waypoints]
    if start is None:
        return []
    if motion.type == "linear":
        dx, dy, dz = motion.direction
        norm = math.sqrt(dx * dx + dy * dy + dz * dz)
        d = motion.travel_dist / norm
        return [start, (start[0] + dx * d, start[1] + dy * d)]
    if motion.type == "circle":
        cx, cy = motion.center[0], motion.center[1]
        r = math.hypot(start[0] - cx, start[1] - cy)
        return [(cx + r, cy), (cx - r, cy), (cx, cy + r), (cx, cy - r)]
    return []


@rule(
    "RSB429",
    "motion-leaves-table",
    "warning",
    bad="(cart_1 (:motion_type linear) (:motion_period 40) (:motion_travel_dist 2))",
    good="(cart_1 (:motion_type linear) (:motion_period 40) (:motion_travel_dist 0.3))",
    applies_to="question",
)
def motion_leaves_table(ctx: Context) -> None:
    """In an rsb task, a moving object whose path leaves the table top (table frame, half
    extents ``rsb_mj.workspace.TABLE_HALF_XY``): a kinematic body does not fall, it floats
    beside the table, out of the workspace. Linear paths run from the start place (the center
    of its ``:init`` region) along the direction; circles around their center; waypoints
    through every point; parabolic flights are not checked."""
    hx, hy = TABLE_HALF_SIZE
    motions, _ = read_moving_objects(ctx.problem)
    for motion in motions:
        for x, y in _path_points(motion, _start_xy(ctx, motion.name)):
            if abs(x) > hx + 1e-9 or abs(y) > hy + 1e-9:
                ctx.report(
                    "RSB429",
                    f"the {motion.type} motion of {motion.name!r} reaches ({x:.3g}, {y:.3g}), "
                    f"off the table (|x| <= {hx:g}, |y| <= {hy:g} m, table frame)",
                    motion.span,
                )
                break
