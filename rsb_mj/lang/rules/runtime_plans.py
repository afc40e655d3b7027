"""Where each object of an rsb task may stand, as the layout sampler reads it: the ``(On
OBJECT REGION)`` of ``:init``, the object's footprint radius and its region's rectangles
shrunk by it (the inset area its center may take).

Read by the RSB5xx layout rules (:mod:`rsb_mj.lang.rules.runtime_layout`) and the scene
rules (:mod:`rsb_mj.lang.rules.runtime_scene`). Lengths are metres in the table frame. The
inset is the layout sampler's own (:func:`rsb_mj.lang.layout.inset`, imported when an rsb
scene is planned: numpy, which LIBERO / VLA-Arena files do not pay for).
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.lang import ast
from rsb_mj.lang.categories import footprint_radius
from rsb_mj.lang.expr import Atom, Name, walk_atoms
from rsb_mj.lang.placement import cost_objects, distractor_names
from rsb_mj.lang.rules.base import Context
from rsb_mj.workspace import DISTRACTOR_CLEARANCE, HAZARD_CLEARANCE

__all__ = ["Plan", "Rect4", "candidate_plans", "distractor_plans", "placement"]

Rect4 = tuple[float, float, float, float]


def placement(problem: ast.Problem, obj: str) -> Atom | None:
    """The first ``(On obj X)`` of ``:init`` (the one the runtime reads), or None."""
    for expr in problem.init:
        for atom in walk_atoms(expr):
            if (
                atom.predicate.lower() == "on"
                and len(atom.args) == 2
                and isinstance(atom.args[0], Name)
                and isinstance(atom.args[1], Name)
                and atom.args[0].value == obj
            ):
                return atom
    return None


def _inset(region: ast.Region, radius: float) -> list[Rect4]:
    """The region's rectangles shrunk by ``radius`` [m] (the layout sampler's inset)."""
    # deferred: numpy, for rsb scenes only
    from rsb_mj.lang.layout import inset

    return inset([(r.x0, r.y0, r.x1, r.y1) for r in region.ranges], radius)


@dataclass(frozen=True)
class Plan:
    """Where one candidate (or static distractor) may stand: its footprint radius, its
    region's inset area and, for a distractor, its clearance to the candidates [m]."""

    name: str
    radius: float
    region: ast.Region
    rects: list[Rect4]
    gap: float = 0.0


def candidate_plans(ctx: Context) -> list[Plan] | None:
    """Per candidate (in order), its placement plan; None when some candidate cannot be
    resolved (undeclared, unplaced, placed on something that is not a region: other rules
    report those)."""
    plans = []
    for name in ctx.problem.candidates:
        decl = ctx.objects.get(name)
        atom = placement(ctx.problem, name)
        if decl is None or atom is None:
            return None
        region = ctx.regions.get(atom.args[1].value)  # type: ignore[union-attr]
        if region is None or not region.ranges:
            return None
        radius = footprint_radius(decl.category)
        plans.append(Plan(name, radius, region, _inset(region, radius)))
    return plans


def distractor_plans(ctx: Context) -> list[Plan]:
    """The placement plan of each static distractor (:func:`~rsb_mj.lang.placement.
    distractor_names`) placed on a region with ``:ranges`` (other rules report the others),
    with its clearance to the candidates (a hazard's is smaller)."""
    hazards = set(cost_objects(ctx.problem))
    plans = []
    for name in distractor_names(ctx.problem):
        decl = ctx.objects.get(name)
        atom = placement(ctx.problem, name)
        region = ctx.regions.get(atom.args[1].value) if atom is not None else None  # type: ignore[union-attr]
        if decl is not None and region is not None and region.ranges:
            radius = footprint_radius(decl.category)
            gap = HAZARD_CLEARANCE if name in hazards else DISTRACTOR_CLEARANCE
            plans.append(Plan(name, radius, region, _inset(region, radius), gap))
    return plans
