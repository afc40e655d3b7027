"""RSB401-406: the blocks of a task are there, complete, and name values the runtime has.

Every task needs ``:goal``; an rsb task also its other blocks (:data:`RSB_REQUIRED`) and their
fields; ``:question``'s source and choice count, ``:instruction``'s template set and
``:options``' mapping rule must be ones the episode sampler knows. The other RSB4xx families
are modules beside this one: :mod:`.semantics_candidates` (RSB407-409, RSB419),
:mod:`.semantics_mapping` (RSB410-412, RSB423), :mod:`.semantics_goal` (RSB413, RSB420),
:mod:`.semantics_connectives` (RSB414-415, RSB421-422), :mod:`.semantics_unused`
(RSB416-417) and :mod:`.semantics_language` (RSB418).
"""

from __future__ import annotations

from rsb_mj.choices import counts_text
from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import CHOICE_COUNTS, MAP_RULES, QUESTION_SOURCES, TEMPLATE_SETS
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import Context, rule

#: Blocks every rsb task needs.
RSB_REQUIRED = ("question", "instruction", "candidates", "options", "grasp", "goal", "layout")


def _has(ctx: Context, keyword: str) -> bool:
    return any(k == keyword for k, _ in ctx.problem.blocks)


@rule(
    "RSB401",
    "missing-block",
    "error",
    bad="(define (problem p) (:domain rsb) (:question (:source arithmetic) (:choices 4)))",
    good="(define (problem p) (:domain rsb) (:question ...) (:instruction ...) (:candidates ...)\n"
    "  (:options ...) (:grasp ...) (:goal ...) (:layout ...) ...)",
)
def missing_block(ctx: Context) -> None:
    """A block the task cannot work without. Every task needs ``:goal``; an rsb task (domain
    ``rsb`` or one with a ``:question``) also needs ``:question``, ``:instruction``,
    ``:candidates``, ``:options``, ``:grasp`` and ``:layout``."""
    required = ("domain", "goal", *RSB_REQUIRED) if ctx.is_rsb else ("domain", "goal")
    for keyword in dict.fromkeys(required):
        if not _has(ctx, keyword):
            ctx.report(
                "RSB401",
                f"missing block ':{keyword}'" + (" for an rsb task" if ctx.is_rsb else ""),
                ctx.problem.span,
            )


@rule(
    "RSB402",
    "incomplete-block",
    "error",
    bad="(:question (:source arithmetic))",
    good="(:question (:source arithmetic) (:choices 4))",
)
def incomplete_block(ctx: Context) -> None:
    """An rsb block without one of its fields: ``:question`` needs ``:source`` and
    ``:choices``, ``:instruction`` needs ``:templates``, ``:options`` needs ``:map``,
    ``:layout`` needs ``:min_spacing`` and ``:yaw_range``."""
    p = ctx.problem
    checks = []
    if p.question is not None:
        checks += [
            (p.question.source is None, p.question.span, ":question", "(:source S)"),
            (p.question.choices is None, p.question.span, ":question", "(:choices N)"),
        ]
    if p.instruction is not None:
        checks.append(
            (not p.instruction.choices, p.instruction.span, ":instruction", "(:templates T)")
        )
    if p.options is not None:
        checks.append((not p.options.rule, p.options.span, ":options", "(:map RULE)"))
    if p.layout is not None:
        checks += [
            (p.layout.min_spacing is None, p.layout.span, ":layout", "(:min_spacing D)"),
            (p.layout.yaw_range is None, p.layout.span, ":layout", "(:yaw_range (LO HI))"),
        ]
    for missing, span, block, field in checks:
        if missing:
            ctx.report("RSB402", f"{block} lacks {field}", span)


def _bad_value(
    ctx: Context, code: str, field: str, value: str, valid: tuple[str, ...], span: Span
) -> None:
    close = did_you_mean(value, valid)
    hint = f"did you mean {close!r}? " if close else ""
    ctx.report(
        code, f"{field} {value!r} is unknown; {hint}valid choices: {', '.join(valid)}", span, close
    )


@rule(
    "RSB403",
    "unknown-source",
    "error",
    bad="(:question (:source gsm8) (:choices 4))",
    good="(:question (:source gsm8k) (:choices 4))",
)
def unknown_source(ctx: Context) -> None:
    """A question source the episode sampler does not have (arithmetic, gsm8k, mmlu_pro,
    mmlu; or a question bank, ``(:source (:file "questions.jsonl"))``)."""
    q = ctx.problem.question
    if q is not None and q.file is not None:
        return
    if q is not None and q.source is not None and q.source not in QUESTION_SOURCES:
        _bad_value(ctx, "RSB403", ":source", q.source, QUESTION_SOURCES, q.span)


@rule(
    "RSB404",
    "bad-choice-count",
    "error",
    bad="(:question (:source arithmetic) (:choices 12))",
    good="(:question (:source arithmetic) (:choices 6))",
)
def bad_choice_count(ctx: Context) -> None:
    """A choice count that is not a whole number from 2 to 10. Options are lettered A, B, C,
    ... with J skipped (it is easily confused with I): ten choices are A-I and K."""
    q = ctx.problem.question
    if q is not None and q.choices is not None and q.choices not in CHOICE_COUNTS:
        ctx.report(
            "RSB404",
            f":choices {q.choices:g} is not supported; valid choices: {counts_text()}",
            q.span,
        )


@rule(
    "RSB405",
    "unknown-template-set",
    "error",
    bad="(:instruction (:templates held_out))",
    good="(:instruction (:templates unseen))",
)
def unknown_template_set(ctx: Context) -> None:
    """An instruction template set other than ``seen`` (demonstrations) or ``unseen`` (held
    out for evaluation); a task's own file is written ``(:file "my_templates.txt")``."""
    i = ctx.problem.instruction
    for choice in i.choices if i is not None else ():
        if choice.set_name is not None and choice.set_name not in TEMPLATE_SETS:
            _bad_value(ctx, "RSB405", ":templates", choice.set_name, TEMPLATE_SETS, choice.span)


@rule(
    "RSB406",
    "unknown-map-rule",
    "error",
    bad="(:options (:map random))",
    good="(:options (:map shuffle))",
)
def unknown_map_rule(ctx: Context) -> None:
    """An option->candidate mapping rule other than ``shuffle`` (drawn per episode) or a fixed
    list of ``(LETTER candidate)`` pairs."""
    o = ctx.problem.options
    if o is not None and o.rule and o.rule not in MAP_RULES:
        _bad_value(ctx, "RSB406", ":map", o.rule, ("shuffle",), o.span)
