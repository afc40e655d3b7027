"""RSB3xx: geometry and placement (ranges, the table, the answer zone, capacity, yaw).

All lengths are metres in the table frame (origin at the table-top center, x right, y away
from the robot); angles are radians.
"""

from __future__ import annotations

import math

from rsb_mj.lang import ast
from rsb_mj.lang.expr import Atom, Name
from rsb_mj.lang.rules.base import Context, rule
from rsb_mj.lang.rules.placement import (
    answer_zone,
    capacity,
    fmt_rect,
    footprint,
    on_table,
    placement_atoms,
    placements,
    spacing,
)
from rsb_mj.lang.table_top import TABLE_HALF_SIZE

#: Fraction of a region's area that discs of the effective spacing may cover before random
#: placement gets slow (random sequential adsorption jams near 0.55).
CROWDED_FRACTION = 0.45


@rule(
    "RSB301",
    "inverted-range",
    "error",
    bad="(candidates (:target table) (:ranges ((0.25 -0.1 -0.25 0.02))))",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))",
)
def inverted_range(ctx: Context) -> None:
    """A ``:ranges`` rectangle written ``(x1 y0 x0 y1)`` or ``(x0 y1 x1 y0)``: the order is
    ``(x_min y_min x_max y_max)``. LIBERO samples uniformly between the bounds and would
    silently place objects in a region of negative size."""
    for region in ctx.problem.regions:
        for rect in region.ranges:
            problems = []
            if rect.x0 > rect.x1:
                problems.append(f"x_min {rect.x0:g} > x_max {rect.x1:g}")
            if rect.y0 > rect.y1:
                problems.append(f"y_min {rect.y0:g} > y_max {rect.y1:g}")
            if problems:
                fixed = ast.Rect(
                    min(rect.x0, rect.x1),
                    min(rect.y0, rect.y1),
                    max(rect.x0, rect.x1),
                    max(rect.y0, rect.y1),
                )
                ctx.report(
                    "RSB301",
                    f"range {fmt_rect(rect)} of region {region.name!r} is inverted: "
                    + "; ".join(problems)
                    + "; the order is (x_min y_min x_max y_max)",
                    rect.span,
                    fix=fmt_rect(fixed),
                )


@rule(
    "RSB302",
    "off-table-range",
    "error",
    bad="(candidates (:target table) (:ranges ((-0.7 -0.1 0.25 0.02))))",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))",
    applies_to="question",
)
def off_table_range(ctx: Context) -> None:
    """In an rsb task, a range on the table that reaches past the table top (half-size
    ``rsb_mj.lang.table_top.TABLE_HALF_SIZE`` in x and y): objects would fall off."""
    hx, hy = TABLE_HALF_SIZE
    for region in ctx.problem.regions:
        if not on_table(ctx, region):
            continue
        for rect in region.ranges:
            out = []
            for label, value, limit in (
                ("x_min", rect.x0, -hx),
                ("y_min", rect.y0, -hy),
            ):
                if value < limit:
                    out.append(f"{label} {value:g} < {limit:g}")
            for label, value, limit in (("x_max", rect.x1, hx), ("y_max", rect.y1, hy)):
                if value > limit:
                    out.append(f"{label} {value:g} > {limit:g}")
            if out:
                ctx.report(
                    "RSB302",
                    f"range {fmt_rect(rect)} of region {region.name!r} leaves the table top "
                    f"(x in [{-hx:g}, {hx:g}], y in [{-hy:g}, {hy:g}] m): " + "; ".join(out),
                    rect.span,
                )


@rule(
    "RSB303",
    "zone-overlap",
    "error",
    bad="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.15))))\n"
    "(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))))",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))\n"
    "(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))))",
)
def zone_overlap(ctx: Context) -> None:
    """A region that holds candidates overlaps the answer zone, counting the candidates'
    footprint radius: a candidate could start in (or touching) the zone, so the episode
    could be solved, or scored, without moving the right object."""
    zone = answer_zone(ctx)
    if zone is None:
        return
    for full_name, names in placements(ctx).items():
        region = ctx.regions.get(full_name)
        if region is None or region is zone:
            continue
        reach = max(footprint(ctx, n) for n in names)
        for rect in region.ranges:
            grown = ast.Rect(rect.x0 - reach, rect.y0 - reach, rect.x1 + reach, rect.y1 + reach)
            for zrect in zone.ranges:
                if grown.overlaps(zrect):
                    ctx.report(
                        "RSB303",
                        f"candidates in {full_name!r} {fmt_rect(rect)} can reach into the "
                        f"answer zone {zone.full_name!r} {fmt_rect(zrect)} "
                        f"(footprint radius {reach:g} m)",
                        rect.span,
                    )


@rule(
    "RSB304",
    "region-capacity",
    "error",
    bad="(candidates (:target table) (:ranges ((-0.05 -0.05 0.05 0.0))))  ; 10 blocks, 0.07 m",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))",
)
def region_capacity(ctx: Context) -> None:
    """A region that cannot hold the candidates ``:init`` places in it: with the vocabulary
    footprints and ``(:layout (:min_spacing D))``, no arrangement keeps every pair of centers
    far enough apart (checked against Groemer's packing bound, so the rule is never wrong
    when it fires). The layout sampler would give up on every episode."""
    if ctx.problem.layout and (ctx.problem.layout.min_spacing or 0) < 0:
        return
    for full_name, names in placements(ctx).items():
        region = ctx.regions.get(full_name)
        if region is None or not region.ranges or len(names) < 2:
            continue
        if any(r.width < 0 or r.depth < 0 for r in region.ranges):
            continue
        distance = spacing(ctx, names)
        bound = capacity(region.ranges, distance)
        if len(names) > bound:
            ctx.report(
                "RSB304",
                f"region {full_name!r} cannot hold its {len(names)} candidates: with centers "
                f"at least {distance:g} m apart at most {bound} fit",
                region.span,
            )


@rule(
    "RSB305",
    "region-crowded",
    "warning",
    bad="(candidates (:target table) (:ranges ((-0.12 -0.1 0.12 0.0))))  ; 10 blocks, 0.07 m",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))",
)
def region_crowded(ctx: Context) -> None:
    """A region that can hold its candidates in principle but is so crowded that random
    placement rarely succeeds: the discs of the effective spacing cover more than 45% of the
    region (grown by half a spacing on each side)."""
    for full_name, names in placements(ctx).items():
        region = ctx.regions.get(full_name)
        if region is None or not region.ranges or len(names) < 2:
            continue
        distance = spacing(ctx, names)
        if distance <= 0 or len(names) > capacity(region.ranges, distance):
            continue
        area = sum(
            (max(r.width, 0) + distance) * (max(r.depth, 0) + distance) for r in region.ranges
        )
        covered = len(names) * math.pi * (distance / 2) ** 2 / area
        if covered > CROWDED_FRACTION:
            ctx.report(
                "RSB305",
                f"region {full_name!r} is crowded: {len(names)} candidates {distance:g} m "
                f"apart cover {covered:.0%} of it (more than {CROWDED_FRACTION:.0%}); "
                "random placement will often fail",
                region.span,
            )


@rule(
    "RSB306",
    "placement-without-ranges",
    "error",
    bad="(candidates (:target table))",
    good="(candidates (:target table) (:ranges ((-0.25 -0.1 0.25 0.02))))",
)
def placement_without_ranges(ctx: Context) -> None:
    """An object placed with ``(On obj REGION)`` in a table region that has no ``:ranges``:
    there is no area to sample its position from. (Regions of cabinets, stoves and other
    fixtures are defined by the fixture's model and need no ranges.)"""
    for atom in ctx.problem.init:
        if not (
            isinstance(atom, Atom)
            and atom.predicate == "On"
            and len(atom.args) == 2
            and isinstance(atom.args[1], Name)
        ):
            continue
        region = ctx.regions.get(atom.args[1].value)
        if region is not None and not region.ranges and on_table(ctx, region):
            ctx.report(
                "RSB306",
                f"{atom.args[1].value!r} has no (:ranges ...) to place objects in",
                atom.span,
            )


@rule(
    "RSB307",
    "bad-rgba",
    "error",
    bad="(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))) (:rgba (128 128 128)))",
    good="(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))) (:rgba (0.5 0.5 0.5 1)))",
)
def bad_rgba(ctx: Context) -> None:
    """An ``:rgba`` that is not four values in [0, 1] (red, green, blue, alpha)."""
    for region in ctx.problem.regions:
        rgba = region.rgba
        if rgba is None:
            continue
        if len(rgba) != 4 or any(not 0.0 <= v <= 1.0 for v in rgba):
            shown = " ".join(f"{v:g}" for v in rgba)
            ctx.report(
                "RSB307",
                f"rgba ({shown}) of region {region.name!r} must be 4 values in [0, 1]",
                region.span,
            )


@rule(
    "RSB308",
    "inverted-yaw-range",
    "error",
    bad="(:layout (:min_spacing 0.07) (:yaw_range (0.3 -0.3)))",
    good="(:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))",
)
def inverted_yaw_range(ctx: Context) -> None:
    """A yaw interval ``(lo hi)`` [rad] with ``lo > hi`` in ``:layout :yaw_range`` or a region's
    ``:yaw_rotation``."""
    layout = ctx.problem.layout
    if layout and layout.yaw_range and layout.yaw_range[0] > layout.yaw_range[1]:
        lo, hi = layout.yaw_range
        ctx.report(
            "RSB308",
            f":yaw_range ({lo:g} {hi:g}) is inverted; write ({hi:g} {lo:g})",
            layout.span,
            fix=f"({hi:g} {lo:g})",
        )
    for region in ctx.problem.regions:
        for lo, hi in region.yaw_rotation:
            if lo > hi:
                ctx.report(
                    "RSB308",
                    f":yaw_rotation ({lo:g} {hi:g}) of region {region.name!r} is inverted; "
                    f"write ({hi:g} {lo:g})",
                    region.span,
                    fix=f"({hi:g} {lo:g})",
                )


@rule(
    "RSB309",
    "bad-min-spacing",
    "error",
    bad="(:layout (:min_spacing -0.07) (:yaw_range (-0.3 0.3)))",
    good="(:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))",
)
def bad_min_spacing(ctx: Context) -> None:
    """A ``:min_spacing`` (minimum distance between candidate centers [m]) that is not a
    positive number below 1 m."""
    layout = ctx.problem.layout
    if layout is None or layout.min_spacing is None:
        return
    if not 0.0 < layout.min_spacing < 1.0:
        ctx.report(
            "RSB309",
            f":min_spacing {layout.min_spacing:g} must be a distance in metres in (0, 1)",
            layout.span,
        )


@rule(
    "RSB310",
    "unplaced-candidate",
    "error",
    bad="(:candidates block_a block_b)\n(:init (On block_a table_candidates))",
    good="(:candidates block_a block_b)\n"
    "(:init (On block_a table_candidates) (On block_b table_candidates))",
)
def unplaced_candidate(ctx: Context) -> None:
    """A candidate with no ``(On CANDIDATE REGION)`` in ``:init``: the layout sampler does not
    know where it may stand."""
    placed = {n for names in placements(ctx).values() for n in names}
    home = candidate_region(ctx)
    for name in ctx.candidates:
        if name not in placed and name in ctx.objects:
            where = "" if home else "; declare a table region for the candidates in :regions"
            ctx.report(
                "RSB310",
                f"candidate {name!r} has no (On {name} REGION) in :init{where}",
                ctx.block_span("init"),
                fix=f"(On {name} {home})" if home else None,
            )


def candidate_region(ctx: Context) -> str | None:
    """The region a fix places a candidate in: the one ``:init`` places most candidates in
    (outside the answer zone), else the task's first region of the table that is not the
    answer zone; None when the task has none (a fix never names a region it lacks)."""
    zone = answer_zone(ctx)
    zone_name = zone.full_name if zone is not None else None
    used = {r: len(n) for r, n in placements(ctx).items() if r != zone_name and r in ctx.regions}
    if used:
        return max(used, key=lambda r: used[r])
    for full_name, region in ctx.regions.items():
        if full_name != zone_name and on_table(ctx, region):
            return full_name
    return None


@rule(
    "RSB311",
    "zone-not-drawn",
    "warning",
    bad="(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))))",
    good="(answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))) (:rgba (0.5 0.5 0.5 1)))",
    applies_to="question",
)
def zone_not_drawn(ctx: Context) -> None:
    """An rsb answer zone with no ``:rgba``: the scene draws the zone as a flat patch of that
    color, so without it the robot cannot see where to put the answer."""
    zone = answer_zone(ctx)
    if zone is not None and zone.rgba is None:
        ctx.report(
            "RSB311",
            f"answer zone {zone.full_name!r} has no (:rgba (R G B A)); it will be invisible",
            zone.span,
            fix="(:rgba (0.5 0.5 0.5 1))",
        )


@rule(
    "RSB312",
    "candidate-in-zone",
    "error",
    bad="(:init (On block_a table_answer_zone))",
    good="(:init (On block_a table_candidates))",
)
def candidate_in_zone(ctx: Context) -> None:
    """A candidate that ``:init`` places in the answer zone: it would count as answered before
    the robot moves."""
    zone = answer_zone(ctx)
    if zone is None:
        return
    for atom in placement_atoms(ctx).get(zone.full_name, []):
        name = atom.args[0].value  # type: ignore[union-attr]
        home = candidate_region(ctx)
        ctx.report(
            "RSB312",
            f"candidate {name!r} starts in the answer zone {zone.full_name!r}",
            atom.span,
            fix=f"(On {name} {home})" if home else None,
        )
