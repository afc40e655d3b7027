"""RSB203, RSB208-210: the declarations, objects, fixtures and regions, are ones the scene
can build and refer to.

Each declared object or fixture has a category, one its domain knows; every name and every
region's full name (``<target>_<region>``) is declared once; every region targets a declared
fixture or object.
"""

from __future__ import annotations

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.known_categories import ALL_CATEGORIES
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.table_top import RSB_FIXTURE_CATEGORIES

__all__ = ["duplicate_name", "missing_category", "unknown_category", "unknown_region_target"]


@rule(
    "RSB203",
    "unknown-category",
    "error",
    bad="(:objects block_a - leter_block)",
    good="(:objects block_a - letter_block)",
)
def unknown_category(ctx: Context) -> None:
    """An object or fixture of a category nobody can build. With ``(:domain rsb)`` objects
    must be rsb categories (``rsb_mj.lang.categories.RSB_CATEGORIES``) and fixtures
    ``table``; other domains may use any LIBERO or VLA-Arena category."""
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if not decl.category:
            continue
        if ctx.is_rsb:
            valid = RSB_FIXTURE_CATEGORIES if decl.name in ctx.fixtures else set(RSB_CATEGORIES)
        else:
            valid = ALL_CATEGORIES
        if decl.category in valid:
            continue
        close = did_you_mean(decl.category, valid)
        hint = f"did you mean {close!r}? " if close else ""
        kind = "fixture" if decl.name in ctx.fixtures else "object"
        ctx.report(
            "RSB203",
            f"{kind} {decl.name!r} has unknown category {decl.category!r}; {hint}"
            f"valid choices: {choices_text(valid)}",
            decl.span,
            fix=close,
        )


#: Why RSB208 on a region is a warning outside ``(:domain rsb)``.
_SAME_NAME_LOADERS = (
    "; LIBERO's and VLA-Arena's loaders accept this (a warning in their domains): rsb_mj "
    "uses the first definition"
)
#: Why RSB209 on a region nothing uses is a warning outside ``(:domain rsb)``.
_UNUSED_REGION_LOADERS = (
    "; LIBERO's and VLA-Arena's loaders accept this and nothing uses the region (a warning "
    "in their domains): rsb_mj builds no site for it"
)


@rule(
    "RSB208",
    "duplicate-name",
    "error",
    bad="(:objects block_a block_a - letter_block)",
    good="(:objects block_a block_b - letter_block)",
)
def duplicate_name(ctx: Context) -> None:
    """The same name declared twice (objects and fixtures share one namespace) or two regions
    with the same full name: references to it become ambiguous. Outside ``(:domain rsb)`` a
    region defined twice is a warning (LIBERO's and VLA-Arena's loaders accept it; rsb_mj uses
    the first definition)."""
    seen: dict[str, Span] = {}
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if decl.name in seen:
            ctx.report(
                "RSB208",
                f"{decl.name!r} is declared again (first at line {seen[decl.name].line})",
                decl.span,
            )
        else:
            seen[decl.name] = decl.span
    regions: dict[str, Span] = {}
    for region in ctx.problem.regions:
        full = region.full_name
        if full in regions:
            loaders = "" if ctx.is_rsb else _SAME_NAME_LOADERS
            ctx.report(
                "RSB208",
                f"region {full!r} is defined again (first at line {regions[full].line})" + loaders,
                region.span,
                severity="warning" if loaders else None,
            )
        elif full in seen:
            ctx.report("RSB208", f"region {full!r} has the name of a declared object", region.span)
        regions.setdefault(full, region.span)


@rule(
    "RSB209",
    "unknown-region-target",
    "error",
    bad="(candidates (:target tabel) (:ranges ((-0.2 -0.1 0.2 0.02))))",
    good="(candidates (:target table) (:ranges ((-0.2 -0.1 0.2 0.02))))",
)
def unknown_region_target(ctx: Context) -> None:
    """A region whose ``:target`` is not a declared fixture or object (or that has no
    ``:target`` at all): nothing to attach it to, and its full name is unclear. Outside
    ``(:domain rsb)`` a region that nothing uses is a warning (LIBERO's and VLA-Arena's loaders
    accept it; rsb_mj builds no site for it)."""
    for region in ctx.problem.regions:
        if region.target is None:
            ctx.report(
                "RSB209",
                f"region {region.name!r} has no (:target NAME); valid targets: "
                f"{choices_text(ctx.decls) or '(none declared)'}",
                region.span,
            )
            continue
        if region.target in ctx.decls:
            continue
        close = did_you_mean(region.target, ctx.decls)
        hint = f"did you mean {close!r}? " if close else ""
        unused = not ctx.is_rsb and region.full_name not in ctx.used_names()
        ctx.report(
            "RSB209",
            f"region {region.name!r} targets {region.target!r}, which is not declared; "
            f"{hint}valid targets: {choices_text(ctx.decls) or '(none declared)'}"
            + (_UNUSED_REGION_LOADERS if unused else ""),
            region.span,
            fix=close,
            severity="warning" if unused else None,
        )


@rule(
    "RSB210",
    "missing-category",
    "error",
    bad="(:objects block_a block_b)",
    good="(:objects block_a block_b - letter_block)",
)
def missing_category(ctx: Context) -> None:
    """A declared name with no ``- category`` after it: the scene cannot build it."""
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if not decl.category:
            ctx.report(
                "RSB210",
                f"{decl.name!r} has no category; write '{decl.name} - CATEGORY'",
                decl.span,
            )
