"""What the placement rules (:mod:`rsb_mj.lang.rules.geometry`) read from a task: the answer
zone, the ``:init`` placements per region, footprints, the smallest spacing and how many
candidates a region's rectangles can hold.

All lengths are metres in the table frame (origin at the table-top center, x right, y away
from the robot).
"""

from __future__ import annotations

import math
import sys

from rsb_mj.lang import ast
from rsb_mj.lang.categories import footprint_radius
from rsb_mj.lang.expr import Atom, Name
from rsb_mj.lang.rules.base import Context
from rsb_mj.lang.table_top import TABLE_CATEGORIES


def answer_zone(ctx: Context) -> ast.Region | None:
    """The (first) answer-zone region (:attr:`rsb_mj.lang.ast.Problem.answer_zone_regions`),
    if any."""
    return next(iter(ctx.problem.answer_zone_regions), None)


def placement_atoms(ctx: Context) -> dict[str, list[Atom]]:
    """Region full name -> the ``(On CANDIDATE REGION)`` atoms of ``:init`` placing there."""
    out: dict[str, list[Atom]] = {}
    for atom in ctx.problem.init:
        if (
            isinstance(atom, Atom)
            and atom.predicate == "On"
            and len(atom.args) == 2
            and isinstance(atom.args[0], Name)
            and isinstance(atom.args[1], Name)
            and atom.args[0].value in ctx.candidates
        ):
            out.setdefault(atom.args[1].value, []).append(atom)
    return out


def placements(ctx: Context) -> dict[str, list[str]]:
    """Region full name -> candidates that ``:init`` places there with ``On``."""
    return {
        region: [a.args[0].value for a in atoms]  # type: ignore[union-attr]
        for region, atoms in placement_atoms(ctx).items()
    }


def footprint(ctx: Context, name: str) -> float:
    """Footprint radius [m] of the object ``name`` (its category's)."""
    decl = ctx.decls.get(name)
    return footprint_radius(decl.category) if decl else footprint_radius("")


def on_table(ctx: Context, region: ast.Region) -> bool:
    """Whether ``region`` is a region of the table."""
    decl = ctx.decls.get(region.target or "")
    return decl is not None and decl.category in TABLE_CATEGORIES


def fmt_rect(rect: ast.Rect) -> str:
    """``(x0 y0 x1 y1)`` as a task file writes it."""
    return f"({rect.x0:g} {rect.y0:g} {rect.x1:g} {rect.y1:g})"


def spacing(ctx: Context, names: list[str]) -> float:
    """Smallest allowed center distance [m] between two of ``names``."""
    layout = ctx.problem.layout
    spacing = layout.min_spacing if layout and layout.min_spacing is not None else 0.0
    smallest = min(footprint(ctx, n) for n in names)
    return max(spacing, 2 * smallest)


def capacity(rects: tuple[ast.Rect, ...], distance: float) -> int:
    """Upper bound on how many points with pairwise distance >= ``distance`` [m] fit in the
    rectangles (Groemer's inequality per rectangle: ``N <= 2A/(sqrt(3) d^2) + P/(2d) + 1``)."""
    cell = math.sqrt(3) * distance**2
    if not cell > 0:  # a spacing so small that its square underflows: no bound to state
        return sys.maxsize
    total = 0
    for rect in rects:
        w, h = max(rect.width, 0.0), max(rect.depth, 0.0)
        bound = 2 * w * h / cell + (w + h) / distance + 1
        if not math.isfinite(bound):
            return sys.maxsize
        total += math.floor(bound)
    return total
