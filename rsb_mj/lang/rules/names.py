"""RSB2xx: names and types (blocks, categories, predicates, declarations, variables)."""

from __future__ import annotations

from rsb_mj.lang import ast
from rsb_mj.lang.rules.base import Context, choices_text, did_you_mean, rule
from rsb_mj.lang.rules.names_arguments import ALL_PARTS
from rsb_mj.lang.vocabulary import (
    DOMAINS,
    GENERIC_BLOCKS,
    KNOWN_BLOCKS,
    PREDICATES,
    REGION_PROPERTIES,
    VARIABLE_KINDS,
)


@rule(
    "RSB201",
    "unknown-block",
    "error",
    bad="(:goall (And (In ?answer table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def unknown_block(ctx: Context) -> None:
    """A top-level block or region property whose keyword the language does not know. The
    parser keeps such blocks verbatim, so a misspelled ``:goal`` would otherwise be ignored
    silently. Known pass-through blocks (``:camera``, ``:noise``, ``:image_settings``, ...) are
    accepted."""
    valid = sorted(":" + k for k in KNOWN_BLOCKS | GENERIC_BLOCKS)
    for section in ctx.problem.sections:
        if section.keyword in GENERIC_BLOCKS:
            continue
        close = did_you_mean(":" + section.keyword, valid)
        hint = f"; did you mean {close!r}?" if close else ""
        ctx.report(
            "RSB201",
            f"unknown block ':{section.keyword}'{hint} valid blocks: {choices_text(valid, 30)}",
            section.span,
            fix=close,
        )
    props = sorted(":" + k for k in REGION_PROPERTIES)
    for region in ctx.problem.regions:
        for section in region.extra:
            close = did_you_mean(":" + section.keyword, props)
            hint = f"; did you mean {close!r}?" if close else ""
            ctx.report(
                "RSB201",
                f"unknown property ':{section.keyword}' in region {region.name!r}{hint} "
                f"valid properties: {', '.join(props)}",
                section.span,
                fix=close,
            )


@rule(
    "RSB202",
    "duplicate-block",
    "error",
    bad="(:objects block_a - letter_block)\n(:objects block_b - letter_block)",
    good="(:objects block_a block_b - letter_block)",
)
def duplicate_block(ctx: Context) -> None:
    """A top-level block written twice. LIBERO keeps only one of them; rsb merges list blocks
    and keeps the last value of the others. Either way the file says two things: write one
    block."""
    seen: dict[str, ast.Span] = {}
    for keyword, span in ctx.problem.blocks:
        if keyword in seen:
            ctx.report(
                "RSB202",
                f"block ':{keyword}' appears again (first at line {seen[keyword].line}); "
                "write it once",
                span,
            )
        else:
            seen[keyword] = span


@rule(
    "RSB207",
    "undefined-name",
    "error",
    bad="(:goal (And (In ?answer table_answer_zon)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_name(ctx: Context) -> None:
    """A name used in ``:init``, ``:goal``, ``:cost``, ``:grasp`` or ``:obj_of_interest`` that
    is neither a declared object or fixture nor a region's full name (``<target>_<region>``)."""
    known = set(ctx.decls) | set(ctx.regions)

    def check(name: str, span: ast.Span, where: str) -> None:
        if name in known:
            return
        close = did_you_mean(name, known)
        hint = f"; did you mean {close!r}?" if close else ""
        ctx.report(
            "RSB207",
            f"{name!r} in {where} is not a declared object, fixture or region{hint}",
            span,
            fix=close,
        )

    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        takes_parts = info is not None and "parts" in (info.args or ())
        for arg in atom.args:
            if not isinstance(arg, ast.Name) or (takes_parts and arg.value == ALL_PARTS):
                continue
            check(arg.value, arg.span, f":{block}")
    for name in ctx.problem.obj_of_interest:
        check(name, ctx.block_span("obj_of_interest"), ":obj_of_interest")


@rule(
    "RSB211",
    "unknown-domain",
    "error",
    bad="(:domain robosuit)",
    good="(:domain robosuite)",
)
def unknown_domain(ctx: Context) -> None:
    """A ``:domain`` other than ``rsb`` (rsb tasks) or ``robosuite`` (LIBERO / VLA-Arena)."""
    domain = ctx.problem.domain
    if domain is None or domain.lower() in DOMAINS:
        return
    close = did_you_mean(domain, DOMAINS)
    ctx.report(
        "RSB211",
        f"unknown domain {domain!r}; valid choices: {', '.join(DOMAINS)}",
        ctx.block_span("domain"),
        fix=close,
    )


@rule(
    "RSB212",
    "undefined-variable",
    "error",
    bad="(:goal (And (In ?anser table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_variable(ctx: Context) -> None:
    """A variable the episode does not bind. ``?answer`` (the correct option's candidate) may
    appear in ``:grasp``, ``:goal`` and ``:cost``; a typed variable ``?c - candidate`` ranges
    over all candidates in the same blocks. ``:init`` describes the start state and takes no
    variables."""
    for block, atom in ctx.atoms():
        for arg in atom.args:
            if not isinstance(arg, ast.Variable):
                continue
            if block == "init":
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' in :init; :init names objects and regions only",
                    arg.span,
                )
            elif arg.kind is not None and arg.kind not in VARIABLE_KINDS:
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' has unknown kind {arg.kind!r}; valid choices: "
                    f"{', '.join(VARIABLE_KINDS)}",
                    arg.span,
                )
            elif arg.kind is None and arg.name != "answer":
                close = did_you_mean(arg.name, ["answer"])
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' is not bound; valid choices: ?answer, "
                    "or a typed variable such as '?c - candidate'",
                    arg.span,
                    fix="?answer" if close else None,
                )
