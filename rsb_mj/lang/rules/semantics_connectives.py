"""RSB414-415, RSB421-422: the ``And``/``Or`` structure of the expression blocks.

What ``:init``, ``:grasp``, ``:goal`` and ``:cost`` say through their connectives: several
top-level terms with no ``And`` (which VLA-Arena would cut to the first), a term repeated in
one ``And``/``Or``, an empty connective, and an ``And`` holding a term and its negation.
"""

from __future__ import annotations

from rsb_mj.lang.expr import And, Atom, Expr, Name, Not, Number, Or, Variable
from rsb_mj.lang.rules.base import Context, rule


@rule(
    "RSB414",
    "cost-without-and",
    "warning",
    bad="(:cost (Fall teapot_1) (CheckGripperContact teapot_1))",
    good="(:cost (And (Fall teapot_1) (CheckGripperContact teapot_1)))",
)
def cost_without_and(ctx: Context) -> None:
    """A ``:cost`` (or ``:goal``) with several top-level terms and no ``And`` around them.
    VLA-Arena silently keeps only the first term of such a block; rsb reads them as their
    ``And`` (a warning: the file runs, every cost term is evaluated and each record says
    ``cost_implicit_and: true``). Write the ``And`` so both agree."""
    for keyword, terms in (
        ("cost", ctx.problem.cost_terms or ()),
        ("goal", ctx.problem.goal_terms),
    ):
        if len(terms) > 1:
            ctx.report(
                "RSB414",
                f":{keyword} has {len(terms)} terms and no And; VLA-Arena keeps only the "
                f"first, so {len(terms) - 1} would be lost",
                ctx.block_span(keyword),
                fix="wrap the terms in (And ...)",
            )


def _connectives(expr: Expr):
    if isinstance(expr, And | Or):
        yield expr
        for term in expr.terms:
            yield from _connectives(term)
    elif isinstance(expr, Not):
        yield from _connectives(expr.term)


@rule(
    "RSB415",
    "duplicate-term",
    "warning",
    bad="(:cost (And (Fall candle_1) (Fall candle_1) (CheckDistance lemon_1 candle_1 0.05)))",
    good="(:cost (And (Fall candle_1) (CheckDistance lemon_1 candle_1 0.05)))",
)
def duplicate_term(ctx: Context) -> None:
    """The same term twice in one ``And``/``Or``: it adds nothing (in a ``:cost`` it may count
    the same violation twice)."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            seen: list[Expr] = []
            for term in node.terms:
                if term in seen:
                    ctx.report(
                        "RSB415",
                        f"term repeated in :{block}: {_show_expr(term)}",
                        term.span,
                    )
                else:
                    seen.append(term)


def _show_expr(expr: Expr) -> str:
    if isinstance(expr, Atom):
        args = []
        for a in expr.args:
            if isinstance(a, Name):
                args.append(a.value)
            elif isinstance(a, Variable):
                args.append("?" + a.name)
            elif isinstance(a, Number):
                args.append(f"{a.value:g}")
            else:
                args.append("(" + " ".join(f"{v:g}" for v in a.values) + ")")
        return "(" + " ".join([expr.predicate, *args]) + ")"
    if isinstance(expr, Not):
        return f"(Not {_show_expr(expr.term)})"
    word = "And" if isinstance(expr, And) else "Or"
    return "(" + " ".join([word, *(_show_expr(t) for t in expr.terms)]) + ")"


@rule(
    "RSB421",
    "empty-connective",
    "warning",
    bad="(:goal (And))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def empty_connective(ctx: Context) -> None:
    """An ``And`` or ``Or`` with no terms: ``(And)`` is always true and ``(Or)`` never true,
    which is rarely what the author meant."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            if not node.terms:
                word = "And" if isinstance(node, And) else "Or"
                truth = "always true" if word == "And" else "never true"
                ctx.report("RSB421", f"empty ({word}) in :{block} is {truth}", node.span)


@rule(
    "RSB422",
    "contradictory-terms",
    "error",
    bad="(:goal (And (In ?answer table_answer_zone) (Not (In ?answer table_answer_zone))))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def contradictory_terms(ctx: Context) -> None:
    """An ``And`` holding a term and its negation: it can never be true."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            if not isinstance(node, And):
                continue
            for term in node.terms:
                if isinstance(term, Not) and term.term in node.terms:
                    ctx.report(
                        "RSB422",
                        f"(And ...) in :{block} holds {_show_expr(term.term)} and its negation; "
                        "it can never be true",
                        term.span,
                    )
