"""RSB416-417: declarations nothing refers to, an object or fixture and a table region.

A name counts as used when a candidate, ``:obj_of_interest``, an atom of any expression
block, a region's target or a free-form section names it.
"""

from __future__ import annotations

from rsb_mj.lang.expr import Name, SList, Symbol
from rsb_mj.lang.rules.base import Context, rule
from rsb_mj.lang.table_top import TABLE_CATEGORIES


def _mentioned_names(ctx: Context) -> set[str]:
    used: set[str] = set(ctx.candidates) | set(ctx.problem.obj_of_interest)
    for _, atom in ctx.atoms():
        used.update(a.value for a in atom.args if isinstance(a, Name))
    for region in ctx.problem.regions:
        if region.target:
            used.add(region.target)
    for section in ctx.problem.sections:
        used.update(_symbols(section.items))
    return used


def _symbols(items: tuple) -> set[str]:
    out: set[str] = set()
    for item in items:
        if isinstance(item, Symbol):
            out.add(item.value)
        elif isinstance(item, SList):
            out |= _symbols(item.items)
    return out


@rule(
    "RSB416",
    "unused-object",
    "warning",
    bad="(:objects block_a block_b - letter_block)\n(:init (On block_a table_candidates))",
    good="(:objects block_a - letter_block)\n(:init (On block_a table_candidates))",
)
def unused_object(ctx: Context) -> None:
    """An object or fixture that nothing refers to (no ``:init`` placement, no predicate, no
    candidate, no region on it): it is never placed, so the scene cannot put it anywhere."""
    used = _mentioned_names(ctx)
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if decl.name not in used:
            ctx.report("RSB416", f"{decl.name!r} is declared but never used", decl.span)


@rule(
    "RSB417",
    "unused-region",
    "warning",
    bad="(milk_region (:target main_table) (:ranges ((-0.15 0.08 -0.13 0.1))))  ; no use",
    good="; delete the region, or place an object in it: (On milk_1 main_table_milk_region)",
)
def unused_region(ctx: Context) -> None:
    """In an rsb task, a table region with ``:ranges`` that nothing refers to: no object is
    placed in it and no predicate mentions it (usually left over from an edit). Not checked
    for ``robosuite`` files: VLA-Arena files carry grids of spare regions for their level
    variants."""
    if not ctx.is_rsb:
        return
    used = _mentioned_names(ctx)
    zone_names = set(ctx.problem.answer_zone_names)
    for region in ctx.problem.regions:
        decl = ctx.decls.get(region.target or "")
        on_table = decl is not None and decl.category in TABLE_CATEGORIES
        if on_table and region.ranges and region.full_name not in used | zone_names:
            ctx.report(
                "RSB417",
                f"region {region.full_name!r} is defined but never used",
                region.span,
            )
