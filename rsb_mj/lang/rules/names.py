"""RSB201-202, RSB211: the top-level blocks and the domain are ones the language knows.

Every block and region property keyword is one the language knows, each top-level block is
written once, and ``:domain`` is ``rsb`` or ``robosuite``. The other RSB2xx families (names
and types) are modules beside this one, one concept each:

* :mod:`.names_declarations` (RSB203, RSB208-210): objects, fixtures and regions, declared
  once, with a known category and a declared target;
* :mod:`.names_predicates` (RSB204, RSB213): predicates the file's domain defines and, in an
  rsb task, the rsb simulator evaluates;
* :mod:`.names_arguments` (RSB205-206): each atom's arguments against its predicate's
  signature (:data:`~.names_arguments.ALL_PARTS`, :func:`~.names_arguments.expected_kinds`);
* :mod:`.names_references` (RSB207, RSB212): names and variables that refer to something.
"""

from __future__ import annotations

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import DOMAINS, GENERIC_BLOCKS, KNOWN_BLOCKS, REGION_PROPERTIES
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import Context, choices_text, rule

__all__ = ["duplicate_block", "unknown_block", "unknown_domain"]


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
    seen: dict[str, Span] = {}
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
