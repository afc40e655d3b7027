"""RSB530-RSB534: what keeps a goal task (a LIBERO / VLA-Arena style file) from running.

A goal task is a file without ``(:question ...)`` outside ``(:domain rsb)``
(:mod:`rsb_mj.lang.buildable`). For every tier rsb_mj builds (all: A0-C) these rules say,
at the position of the part at fault, what would stop ``rsb eval FILE`` before or at its first
reset: a category rsb_mj has no model of (RSB531), a goal no arm can carry out on the task's
frame map (RSB532, :mod:`rsb_mj.lang.frame_map`), a goal that already holds at ``:init``
(RSB533), more footprint than the table has room for (RSB534). With ``--target rsb`` (the
files as scenes rsb_mj must build) a goal predicate nothing scores is an error too (RSB530);
without it, such files are linted as what their own loaders accept.

RSB535 (a shipped file whose frozen table is short: its seeds gave no valid layout when the
tables were frozen) is declared here and found where the frozen tables are read
(:func:`rsb_mj.tables.layouts.short_table_findings`; ``rsb lint`` asks it for every file it
lints): a layout that does not settle is a fact of the physics, not of the text.
"""

from __future__ import annotations

import math

from rsb_mj.errors import TaskError
from rsb_mj.lang.buildable import BUILDABLE_TIERS, unbuildable
from rsb_mj.lang.categories import RSB_CATEGORIES, footprint_radius
from rsb_mj.lang.expr import walk_atoms
from rsb_mj.lang.frame_map import (
    REACH_MARGIN,
    FrameMap,
    choose_map,
    goal_pair_reachable,
    region_rect,
)
from rsb_mj.lang.known_categories import ALL_CATEGORIES
from rsb_mj.lang.rules.base import Context, choices_text, declare, rule
from rsb_mj.lang.task import TABLES, Relation, Task, task_of
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN, TABLE_HALF_XY

__all__ = [
    "SHORT_TABLE",
    "crowded_table",
    "frame_map_of",
    "goal_at_reset",
    "goal_tier",
    "no_model",
    "unreachable_goal",
]

_GOAL = """(define (problem Put_The_Apple_On_The_Plate) (:domain robosuite)
  (:language put the apple on the plate)
  (:regions (apple_region (:target main_table) (:ranges ((-0.05 -0.2 -0.03 -0.18))))
            (plate_region (:target main_table) (:ranges ((-0.05 0.1 -0.03 0.12)))))
  (:fixtures main_table - table) (:objects apple_1 - apple plate_1 - plate)
  (:init (On apple_1 main_table_apple_region) (On plate_1 main_table_plate_region))
  (:goal (And (On apple_1 plate_1))))"""


def goal_task(ctx: Context) -> Task | None:
    """The goal task of ``ctx`` when it is one these rules check (tier A0/A1, or any tier
    with ``--target rsb``), else None."""
    if not ctx.problem.goal_terms:
        return None
    try:
        task = task_of(ctx.problem, expect="goal")
    except TaskError:
        return None
    if task.tier in BUILDABLE_TIERS or ctx.target == "rsb":
        return task
    return None


_FRAME_MAP: list[tuple[object, FrameMap]] = []  # the last (problem, its frame map)


def frame_map_of(ctx: Context, task: Task) -> FrameMap:
    """``choose_map(task)`` for the goal task of ``ctx``, computed once per file (the last
    file's kept: RSB532, RSB540 and RSB542 read it)."""
    if _FRAME_MAP and _FRAME_MAP[0][0] is ctx.problem:
        return _FRAME_MAP[0][1]
    fmap = choose_map(task)
    _FRAME_MAP[:] = [(ctx.problem, fmap)]
    return fmap


class _Every(set):
    """Every category name (the tier's issues alone are wanted from ``unbuildable``)."""

    def __contains__(self, item: object) -> bool:
        return True


@rule(
    "RSB530",
    "goal-tier",
    "error",
    bad="; rsb lint --target rsb\n(:goal (And (Up akita_black_bowl_1)))",
    good=_GOAL,
    applies_to="goal",
)
def goal_tier(ctx: Context) -> None:
    """A goal task rsb_mj cannot build, with ``--target rsb``, at the part that stops it: a
    goal predicate nothing in rsb_mj scores (one other than ``On``, ``In``, ``Open``,
    ``Close``, ``TurnOn``, ``TurnOff``: LIBERO's ``Up``, ``Stack`` ...), at the atom. Every
    tier builds (``docs/goal_tasks.md``): A0/A1 table-top scenes, B1/B2 with articulated
    drawers, door and knob, C (a floor workspace) with its floor patch re-hosted on the
    table. Without ``--target rsb`` a file is linted as what its own loader accepts."""
    task = goal_task(ctx)
    if task is None or ctx.target != "rsb":
        return
    for issue in unbuildable(task, _Every()):
        ctx.report("RSB530", issue.message, issue.span)


@rule(
    "RSB531",
    "no-model",
    "error",
    bad="(:objects knife_1 - knife)  ; a LIBERO category rsb_mj has no stand-in of",
    good="(:objects apple_1 - apple)",
    applies_to="goal",
)
def no_model(ctx: Context) -> None:
    """An object or fixture of a goal task whose category (one LIBERO or VLA-Arena knows)
    has no model in rsb_mj: neither a stand-in nor an rsb category
    (``rsb_mj.lang.categories.RSB_CATEGORIES``; ``docs/objects.md``). A fixture without one
    stops the scene from compiling; an object would be a plain grey primitive no policy can
    recognise. Unknown categories are RSB203."""
    task = goal_task(ctx)
    if task is None:
        return
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        cat = decl.category
        if not cat or cat not in ALL_CATEGORIES or cat in RSB_CATEGORIES or cat in TABLES:
            continue
        kind = "fixture" if decl.name in ctx.fixtures else "object"
        ctx.report(
            "RSB531",
            f"{kind} {decl.name!r}: category {cat!r} has no rsb_mj model; categories with "
            f"one: {choices_text(RSB_CATEGORIES, 20)}",
            decl.category_span,
        )


@rule(
    "RSB532",
    "unreachable-goal",
    "error",
    bad="(apple_region (:target main_table) (:ranges ((-0.6 -0.6 -0.58 -0.58))))\n"
    "(plate_region (:target main_table) (:ranges ((0.6 0.6 0.62 0.62))))",
    good="(apple_region (:target main_table) (:ranges ((-0.05 -0.2 -0.03 -0.18))))\n"
    "(plate_region (:target main_table) (:ranges ((-0.05 0.1 -0.03 0.12))))",
    applies_to="goal",
)
def unreachable_goal(ctx: Context) -> None:
    """A goal relation no single arm can carry out: on the task's frame map (the LIBERO /
    VLA-Arena table frame scaled down to 0.55 and shifted onto the Aloha table,
    ``rsb_mj.lang.frame_map``), the mover's ``:init`` region and its place are not both
    within one arm's reach (0.26-0.50 m from its waist axis; a place on a fixture 6 cm
    nearer). The scene would build, but no policy could pick the object and place it."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    fmap = frame_map_of(ctx, task)
    for i, rel in enumerate(task.goal):
        if goal_pair_reachable(task, i, fmap) is False:
            bases = ", ".join(f"{s} ({x:g}, {y:g})" for s, (x, y) in ARM_BASE_XY.items())
            ctx.report(
                "RSB532",
                f"no arm reaches both the :init place of {rel.mover!r} and {rel.place!r} on any "
                f"frame map (best: scale {fmap.scale:g}, shift {fmap.shift}): one arm must "
                f"reach both, {REACH_MIN + REACH_MARGIN:g}-{REACH_MAX - REACH_MARGIN:g} m from "
                f"its waist axis at {bases}",
                rel.span,
            )


def _holds_at_init(task: Task, goal: Relation) -> bool:
    """True when ``:init`` puts ``goal``'s mover where the goal wants it: the same place, or
    a table region inside the goal's table region."""
    for rel in task.init:
        if rel.mover != goal.mover:
            continue
        if rel.place == goal.place:
            return True
        if rel.kind == goal.kind == "region":
            a, b = region_rect(task, rel.place), region_rect(task, goal.place)
            if a and b and b.x0 <= a.x0 and a.x1 <= b.x1 and b.y0 <= a.y0 and a.y1 <= b.y1:
                return True
    return False


@rule(
    "RSB533",
    "goal-at-reset",
    "error",
    bad="(:init (On apple_1 plate_1) ...)\n(:goal (And (On apple_1 plate_1)))",
    good="(:init (On apple_1 main_table_apple_region) ...)\n(:goal (And (On apple_1 plate_1)))",
    applies_to="goal",
)
def goal_at_reset(ctx: Context) -> None:
    """A goal that holds before anything moves: every relation of the ``:goal`` is one
    ``:init`` already sets (the same place, or an ``:init`` region inside the goal's). Every
    episode would start solved (a policy that does nothing would succeed, or the reset would
    draw no start where the goal is false), so ``rsb eval`` refuses the file."""
    task = goal_task(ctx)
    atoms = [a for t in ctx.problem.goal_terms for a in walk_atoms(t)]
    if task is None or not task.goal or len(task.goal) != len(atoms):
        return  # a goal of other predicates too: RSB530
    if all(_holds_at_init(task, g) for g in task.goal):
        ctx.report(
            "RSB533",
            "the goal holds at :init ("
            + ", ".join(f"({g.predicate} {g.mover} {g.place})" for g in task.goal)
            + "): every episode would start solved, so the file does not run",
            ctx.block_span("goal"),
        )


#: Area [m^2] of the Aloha table top.
TABLE_AREA = 4 * TABLE_HALF_XY[0] * TABLE_HALF_XY[1]


@rule(
    "RSB534",
    "crowded-table",
    "error",
    bad="(:objects board_1 board_2 board_3 board_4 board_5 board_6 board_7 - cutting_board)",
    good="(:objects board_1 - cutting_board)",
    applies_to="goal",
)
def crowded_table(ctx: Context) -> None:
    """A layout that cannot be drawn: the footprints of the objects standing on the table and
    of the fixtures (discs of each category's footprint radius,
    ``rsb_mj.lang.categories``) add up to more than the table's area (1.22 x 0.76 m), so no
    draw keeps them apart and every reset fails."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    on_table = {r.mover for r in task.init if r.kind == "region"}
    placed = [d for d in (*ctx.problem.fixtures, *ctx.problem.objects) if d.name in on_table]
    area = sum(math.pi * footprint_radius(d.category) ** 2 for d in placed)
    if area > TABLE_AREA:
        ctx.report(
            "RSB534",
            f"the {len(placed)} objects and fixtures on the table cover {area:.2f} m^2 "
            f"(discs of their footprint radii), more than the table's {TABLE_AREA:.2f} m^2: "
            "no layout keeps them apart; declare fewer or smaller ones",
            ctx.block_span("objects"),
        )


#: A shipped goal file whose frozen table is short (found by ``rsb_mj.tables.layouts``).
SHORT_TABLE = declare(
    "RSB535",
    "short-frozen-table",
    "warning",
    """A shipped goal suite's file (under ``tasks/``) whose frozen table holds fewer rows than
    a file's (5 eval, 20 train): when the tables were frozen (``rsb episodes build``), seed
    after seed gave no valid layout (an object off the table, not at rest 1 s after
    placement, interpenetrating, or the goal already true), so ``rsb eval --suite``, ``rsb
    demos --suite`` and the vla-eval plugin leave the file out. Reported at the object the
    manifest's reason names (else at ``:init``), with that reason; an error with ``--target
    rsb``. The text is valid: change the scene (the stand-ins, the frame map) and refreeze
    the file's rows; ``rsb episodes check`` lists the short files too.""",
    bad="(:objects water_ball_1 water_ball_2 ... water_ball_13 - water_ball)  ; no seed settles",
    good="(:objects water_ball_1 water_ball_2 - water_ball)",
)
