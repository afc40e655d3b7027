"""RSB536-RSB541: goals no layout or motion can make true, and ``:init`` states rsb_mj does
not set, in a goal task (a LIBERO / VLA-Arena style file) of a tier rsb_mj builds.

Each is decided from the text alone, before any sampling: a relation of an object with
itself (RSB536), relations that go round in a cycle (RSB537), ``In`` a place that holds
nothing (RSB538), a fixture as the thing the goal moves (RSB539), more footprint on one
table region than its draws can reach (RSB540; the table as a whole is RSB534), an
``:init`` atom that operates a fixture, which a tier A file's static props do not apply (RSB541, a
warning: LIBERO and VLA-Arena apply it, rsb_mj builds the scene without it), and a region
that can place an object the task names outside the head image of the table top (RSB542, a
warning).
"""

from __future__ import annotations

import math
import re

from rsb_mj.lang.buildable import BUILDABLE_TIERS, TABLETOP_TIERS
from rsb_mj.lang.categories import footprint_radius
from rsb_mj.lang.expr import walk_atoms
from rsb_mj.lang.frame_map import owner_of, region_rect
from rsb_mj.lang.named_objects import named_objects
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.rules.runtime_goal import frame_map_of, goal_task
from rsb_mj.lang.task import OPERATING, Relation, Task
from rsb_mj.workspace import TABLE_HALF_XY, TABLE_TOP_Z

__all__ = [
    "CONTAINING_REGIONS",
    "MAX_REGION_GROWTH",
    "TABLE_VIEW",
    "crowded_region",
    "fixture_mover",
    "goal_cycle",
    "goal_on_itself",
    "in_no_container",
    "init_not_applied",
    "outside_head_view",
]

#: The regions that hold things (an ``In`` can be true there), by category: the regions with
#: a volume of LIBERO's and VLA-Arena's models, which rsb_mj's stand-ins copy
#: (``rsb_mj.scene.categories.standins``; ``tests/lang/rules/test_relations.py`` checks
#: the two agree). Other regions (``top_side``, ``cook_region``, a table region) are surfaces:
#: sites 2-10 mm high, in which an object's origin never lies.
CONTAINING_REGIONS: dict[str, frozenset[str]] = {
    "basket": frozenset({"contain_region"}),
    "box": frozenset({"contain_region"}),
    "wooden_tray": frozenset({"contain_region"}),
    "desk_caddy": frozenset(
        {
            "back_contain_region",
            "front_contain_region",
            "left_contain_region",
            "right_contain_region",
        }
    ),
    "wooden_cabinet": frozenset({"top_region", "middle_region", "bottom_region"}),
    "white_cabinet": frozenset({"top_region", "middle_region", "bottom_region"}),
    "short_cabinet": frozenset({"top_region", "middle_region", "bottom_region"}),
    "wooden_shelf": frozenset({"top_region", "middle_region", "bottom_region"}),
    "wooden_two_layer_shelf": frozenset({"top_region", "bottom_region"}),
    "microwave": frozenset({"heating_region"}),
    "wine_rack": frozenset({"top_region"}),
}

#: How far [m] the goal scene grows a table region, each side, while it redraws an object
#: that overlaps another (``GROW * PLACE_TRIES`` of ``rsb_mj.scene.region_layout``; the test
#: checks they agree), kept this far inside the table edge: ``_GROWN_EDGE``.
MAX_REGION_GROWTH = 0.2
_GROWN_EDGE = 0.03
#: The densest packing of equal discs in the plane (hexagonal): pi / sqrt(12), about 0.907.
#: No layout of discs covers more of an area, so RSB540 refuses only what cannot be drawn.
PACKING = math.pi / math.sqrt(12)

_GOAL = "(:goal (And (On bowl_1 plate_1)))"


def _holder(task: Task, rel: Relation) -> str | None:
    """The object or fixture ``rel``'s mover would be on or in (None for a table region)."""
    if rel.kind == "object":
        return rel.place
    if rel.kind == "site":
        return owner_of(task, rel.place)
    return None


@rule(
    "RSB536",
    "goal-on-itself",
    "error",
    bad="(:goal (And (On bowl_1 bowl_1)))",
    good=_GOAL,
    applies_to="goal",
)
def goal_on_itself(ctx: Context) -> None:
    """A goal relation of an object with itself: ``(On a a)``, or ``On``/``In`` a region of
    the mover itself (``(In basket_1 basket_1_contain_region)``). The place moves with the
    object, so the relation can never hold (or holds by construction), and no episode
    measures anything."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    for rel in task.goal:
        holder = _holder(task, rel)
        if holder != rel.mover:
            continue
        what = "itself" if rel.place == rel.mover else f"a region of {rel.mover!r} itself"
        ctx.report(
            "RSB536",
            f"({rel.predicate} {rel.mover} {rel.place}): the place is {what}, which moves with "
            "it; a goal relation places an object on or in another object, fixture or region",
            rel.span,
        )


@rule(
    "RSB537",
    "goal-cycle",
    "error",
    bad="(:goal (And (On bowl_1 plate_1) (On plate_1 bowl_1)))",
    good=_GOAL,
    applies_to="goal",
)
def goal_cycle(ctx: Context) -> None:
    """Goal relations that go round in a cycle: ``(On a b)`` and ``(On b a)``, or longer
    (a on b, b on c, c on a; a region of an object counts as the object). Each object would
    have to stand on one that stands on it, so the goal never holds. Reported at the
    relation that closes the cycle, naming all of its relations."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    edges: dict[str, list[tuple[str, Relation]]] = {}
    for rel in task.goal:
        holder = _holder(task, rel)
        if holder is not None and holder != rel.mover:  # itself: RSB536
            edges.setdefault(rel.mover, []).append((holder, rel))
    reported: set[frozenset[str]] = set()
    for mover, out in edges.items():
        for holder, rel in out:
            path = _path_back(edges, holder, mover, (rel,))
            movers = frozenset(r.mover for r in path or ())
            if path is None or movers in reported:
                continue
            reported.add(movers)
            last = max(path, key=lambda r: (r.span.line, r.span.column))
            terms = ", ".join(f"({r.predicate} {r.mover} {r.place})" for r in path)
            ctx.report(
                "RSB537",
                f"the goal's relations go round in a cycle: {terms}; each object would have "
                "to stand on one that stands on it, so the goal never holds",
                last.span,
            )


def _path_back(
    edges: dict[str, list[tuple[str, Relation]]],
    start: str,
    target: str,
    path: tuple[Relation, ...],
) -> tuple[Relation, ...] | None:
    """``path`` followed by the goal relations leading from ``start`` back to ``target``
    (depth first), or None when none does."""
    if start == target:
        return path
    for holder, rel in edges.get(start, ()):
        if rel not in path:
            found = _path_back(edges, holder, target, (*path, rel))
            if found is not None:
                return found
    return None


_SURFACE = re.compile(r"(top_side(_\d+)?|bottom_side|cook_region)")


@rule(
    "RSB538",
    "in-no-container",
    "error",
    bad="(:goal (And (In bowl_1 main_table_plate_region)))",
    good="(:goal (And (In bowl_1 basket_1_contain_region)))",
    applies_to="goal",
)
def in_no_container(ctx: Context) -> None:
    """``In`` a place that holds nothing: a table region or a surface (``top_side``,
    ``cook_region``: sites a few millimetres high, in which an object's origin never lies;
    use ``On``), or a region of an object or fixture whose model has no such container
    (``plate_1_contain_region``: a plate holds nothing; the categories and regions that do
    are listed). ``In`` an object is scored as ``On`` it and is not reported."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    categories = {**task.fixtures, **task.objects}
    for rel in task.goal:
        if rel.predicate != "In" or rel.kind == "object":
            continue
        region = ctx.regions.get(rel.place)
        if rel.kind == "region":
            why = "a table region, a surface in which an object's origin never lies; use On"
        elif region is None:
            continue  # an undeclared site: RSB207
        elif _SURFACE.fullmatch(region.name):
            why = f"{region.name!r} is a surface of {region.target!r}; use On"
        else:
            category = categories.get(region.target or "", "")
            held = CONTAINING_REGIONS.get(category)
            if held is None:
                why = (
                    f"{region.target!r} (a {category}) holds nothing; the categories that do: "
                    f"{choices_text(CONTAINING_REGIONS)}"
                )
            elif region.name not in held:
                why = f"a {category} holds things in {choices_text(held)}, not in {region.name!r}"
            else:
                continue
        ctx.report("RSB538", f"(In {rel.mover} {rel.place}): {why}", rel.span)


@rule(
    "RSB539",
    "fixture-mover",
    "error",
    bad="(:goal (And (On wooden_cabinet_1 plate_1)))",
    good=_GOAL,
    applies_to="goal",
)
def fixture_mover(ctx: Context) -> None:
    """A goal whose first argument, the thing moved, is a fixture (a table, cabinet, stove,
    rack ...). Fixtures stand where ``:init`` puts them (static props in rsb_mj; fixed in
    LIBERO's and VLA-Arena's scenes): nothing can carry one to its place."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    for rel in task.goal:
        if rel.mover in task.fixtures:
            ctx.report(
                "RSB539",
                f"({rel.predicate} {rel.mover} {rel.place}): {rel.mover!r} is a fixture "
                f"({task.fixtures[rel.mover]}), which stands where :init puts it; the first "
                f"argument is the object moved: one of {choices_text(task.objects)}",
                rel.span,
            )


@rule(
    "RSB540",
    "crowded-region",
    "error",
    bad="(:init (On bowl_1 main_table_bowl_region) (On bowl_2 main_table_bowl_region) ...)"
    "  ; 40 bowls",
    good="(:init (On bowl_1 main_table_bowl_region) (On bowl_2 main_table_plate_region))",
    applies_to="goal",
)
def crowded_region(ctx: Context) -> None:
    """More objects on one table region than its draws can keep apart: the footprints (discs
    of each category's footprint radius) of the objects ``:init`` puts on the region add up
    to more than discs can cover (90.7%, the densest packing) of the area the scene draws
    them in (the region on the Aloha table, grown by up to 0.2 m each side while it redraws
    an object that overlaps another, kept on the table). No layout exists, so every reset
    would fail after all its draws (minutes for dozens of objects). Decided from the areas
    alone, before any sampling; a region filled short of that bound may still fail its
    draws (the sampler is random, and round objects roll)."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    fmap = None
    per_region: dict[str, list[str]] = {}
    for rel in task.init:
        if rel.kind == "region" and rel.mover in task.objects:
            per_region.setdefault(rel.place, []).append(rel.mover)
    for place, movers in per_region.items():
        rect = region_rect(task, place)
        if rect is None or len(movers) < 2:
            continue
        radii = [footprint_radius(task.objects[m]) for m in movers]
        need = sum(math.pi * r**2 for r in radii)
        fmap = fmap or frame_map_of(ctx, task)
        x0, y0, x1, y1 = fmap.rect(rect, place)
        hx, hy = TABLE_HALF_XY[0] - _GROWN_EDGE, TABLE_HALF_XY[1] - _GROWN_EDGE
        pad = MAX_REGION_GROWTH + max(radii)
        w = min(x1 + pad, hx + max(radii)) - max(x0 - pad, -hx - max(radii))
        h = min(y1 + pad, hy + max(radii)) - max(y0 - pad, -hy - max(radii))
        room = max(w, 0.0) * max(h, 0.0)
        if need > PACKING * room:
            region = ctx.regions.get(place)
            ctx.report(
                "RSB540",
                f"the {len(movers)} objects :init puts on {place!r} cover {need:.3f} m^2 (discs "
                f"of their footprint radii), more than discs can cover of the {room:.3f} m^2 "
                f"the scene draws them in ({PACKING:.1%} at the densest packing; the region "
                f"grown by up to {MAX_REGION_GROWTH:g} m each side, on the table): no layout "
                "keeps them apart; spread them over more regions or declare fewer",
                region.span if region is not None else ctx.block_span("init"),
            )


@rule(
    "RSB541",
    "init-not-applied",
    "warning",
    bad="(:init (On flat_stove_1 main_table_stove_region) (Turnon flat_stove_1))",
    good="(:init (On flat_stove_1 main_table_stove_region))",
    applies_to="goal",
)
def init_not_applied(ctx: Context) -> None:
    """An ``:init`` atom that operates a fixture (``Open``, ``Close``, ``TurnOn``,
    ``TurnOff``) in a goal task rsb_mj builds: its fixtures are static props in their
    modelled state, so the scene starts without it (``rsb eval`` warns the same at the
    start of a run). LIBERO and VLA-Arena apply it, and so does rsb_mj in a tier B file
    (its fixtures articulated): only a tier A0/A1 file's is reported."""
    task = goal_task(ctx)
    if task is None or task.tier not in TABLETOP_TIERS:
        return
    for term in ctx.problem.init:
        for atom in walk_atoms(term):
            if atom.predicate.lower() in OPERATING:
                args = " ".join(str(getattr(a, "value", a)) for a in atom.args)
                ctx.report(
                    "RSB541",
                    f"({atom.predicate} {args}) in :init is not applied: rsb_mj's fixtures are "
                    "static props in their modelled state, so the scene starts without it",
                    atom.span,
                )


#: The goal head camera (``rsb_mj.scene.framing``: tilt 10 deg from vertical towards +y,
#: field of view 45 deg, 4% margin) posed to frame the whole table top (``frame_box`` of the
#: table top; ``tests/lang/rules/test_relations.py`` checks they agree): eye [m, world],
#: tilt [deg], vertical field of view [deg]. A goal task's own head camera frames its named
#: objects' regions (``GoalLayout.boxes``); one that must pull back past this view to hold a
#: region shows every object smaller than the whole table's view does.
TABLE_VIEW = ((0.0, -0.303681, 2.321154), 10.0, 45.0)
#: Side [px] of the head image rule 1 measures (``rsb_mj.env.visibility``).
HEAD_PX = 224


def _table_view_px(x: float, y: float, z: float) -> tuple[float, float]:
    """Pixel (u right, v down) [px] of the world point (x, y, z) [m] in the
    :data:`HEAD_PX`-square head image of :data:`TABLE_VIEW` (a pinhole, pure Python)."""
    (ex, ey, ez), tilt, fovy = TABLE_VIEW
    t = math.radians(tilt)
    fy, fz = math.sin(t), -math.cos(t)  # forward (0, fy, fz); right (1, 0, 0); up = right x fwd
    dx, dy, dz = x - ex, y - ey, z - ez
    depth = dy * fy + dz * fz
    up = -dy * fz + dz * fy
    f = HEAD_PX / 2 / math.tan(math.radians(fovy) / 2)
    return HEAD_PX / 2 + f * dx / depth, HEAD_PX / 2 - f * up / depth


@rule(
    "RSB542",
    "outside-head-view",
    "warning",
    bad="(:regions (far_region (:target main_table) (:ranges ((-1.5 -1.5 1.5 1.5)))))"
    "  ; bowl_1 is named by :goal",
    good="(:regions (bowl_region (:target main_table) (:ranges ((-0.1 -0.05 -0.05 0.0)))))",
    applies_to="goal",
)
def outside_head_view(ctx: Context) -> None:
    """A table region that can place an object or fixture the task names (its ``:goal`` or
    ``:language``, :func:`rsb_mj.lang.named_objects.named_objects`) outside the head image: a
    corner of the region (each ``:ranges`` rectangle, on the Aloha table by the task's frame
    map, grown by the object's footprint radius) projects outside the 224x224 image of the
    goal head camera posed to frame the whole table top (:data:`TABLE_VIEW`). The task's own
    head camera frames every region its named objects can stand in, so it pulls back past
    the whole table's view to hold this one, and every object it shows is smaller (rule 1
    asks 150 visible pixels each); where the region leaves the table, the object can also
    be drawn off it. Decided from the text alone (no scene is compiled); the finding names
    the point [m, world] and the ``:init`` atom that puts the object there."""
    task = goal_task(ctx)
    if task is None or task.tier not in BUILDABLE_TIERS:
        return
    named = set(named_objects(task))
    fmap = None
    for rel in task.init:
        if rel.kind != "region" or rel.mover not in named:
            continue
        region = next((r for r in task.problem.regions if r.full_name == rel.place), None)
        if region is None or not region.ranges:
            continue
        category = task.objects.get(rel.mover) or task.fixtures.get(rel.mover, "")
        radius = footprint_radius(category)
        fmap = fmap or frame_map_of(ctx, task)
        worst: tuple[float, float, float] | None = None  # (px outside, x, y)
        for r in region.ranges:
            x0, y0, x1, y1 = fmap.rect(r, rel.place)
            for x in (x0 - radius, x1 + radius):
                for y in (y0 - radius, y1 + radius):
                    u, v = _table_view_px(x, y, TABLE_TOP_Z)
                    out = max(-u, u - HEAD_PX, -v, v - HEAD_PX)
                    if out > 0 and (worst is None or out > worst[0]):
                        worst = (out, x, y)
        if worst is not None:
            out, x, y = worst
            ctx.report(
                "RSB542",
                f"({rel.predicate} {rel.mover} {rel.place}) can place {rel.mover!r}, which "
                f":goal or :language names, at ({x:.3f}, {y:.3f}) m (world), {out:.0f} px "
                f"outside the {HEAD_PX}x{HEAD_PX} head image of the whole table top: the "
                "task's head camera pulls back to hold it and every object looks smaller; "
                "keep the region on the table",
                rel.span,
            )
