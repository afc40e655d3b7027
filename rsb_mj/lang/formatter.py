"""The canonical layout of task files (``rsb fmt``).

One layout for every file: blocks in a fixed order (domain, language, question, instruction,
regions, fixtures, objects, obj_of_interest, candidates, options, init, grasp, goal, cost,
layout, answer_zone, then pass-through blocks in source order), the declarations of
``:fixtures`` and ``:objects`` on one line below the keyword when they fit (else one
``names - category`` group per line), two-space indentation, closing parentheses at the end
of the last line of a form, numbers written as integers when they are integral and otherwise
with Python's shortest round-trip repr, and expressions on one line when they fit in
:data:`WIDTH` columns.

Formatting is an identity on the AST: ``parse(format(parse(text))) == parse(text)``.

Comments stay where they are (:mod:`rsb_mj.lang.comments`: every output line remembers the
source positions it renders, and each comment is placed beside the form it was beside). A
form with a comment inside it is not joined onto one line, so each comment keeps its
neighbour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rsb_mj.lang import ast
from rsb_mj.lang.blocks import Question, TemplateChoice
from rsb_mj.lang.comments import (
    Comment,
    Line,
    Pos,
    close,
    end_of,
    find_comments,
    head_end,
    place_comments,
    start_of,
)
from rsb_mj.lang.expr import And, Arg, Atom, Expr, Name, Not, Number, SExp, SList, Symbol, Variable
from rsb_mj.lang.nodes import NO_SPAN, Span
from rsb_mj.lang.parser import parse_text

__all__ = ["WIDTH", "arg", "expr_line", "format_problem", "format_text", "number", "sexp"]

#: Target line width [characters].
WIDTH = 100
_STEP = "  "


def number(value: float | int) -> str:
    """Canonical text of a number: ``1`` for 1.0, ``0.05``, ``-0.3``, ``0.060000000000000005``."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _numbers(values: Iterable[float]) -> str:
    return "(" + " ".join(number(v) for v in values) + ")"


def arg(a: Arg) -> str:
    """Canonical text of a predicate argument."""
    if isinstance(a, Name):
        return a.value
    if isinstance(a, Variable):
        return f"?{a.name}" + (f" - {a.kind}" if a.kind else "")
    if isinstance(a, Number):
        return number(a.value)
    return _numbers(a.values)


def expr_line(e: Expr) -> str:
    """An expression on one line."""
    if isinstance(e, Atom):
        return "(" + " ".join([e.predicate, *(arg(a) for a in e.args)]) + ")"
    if isinstance(e, Not):
        return f"(Not {expr_line(e.term)})"
    word = "And" if isinstance(e, And) else "Or"
    return "(" + " ".join([word, *(expr_line(t) for t in e.terms)]) + ")"


def sexp(item: SExp) -> str:
    """A generic s-expression on one line."""
    if isinstance(item, Symbol):
        return item.value
    if isinstance(item, Number):
        return number(item.value)
    if isinstance(item, Variable):
        return "?" + item.name
    return "(" + " ".join(sexp(i) for i in item.items) + ")"


class _Layout:
    """Lays out one problem around ``comments`` (their positions decide what stays broken)."""

    def __init__(self, comments: Iterable[Comment] = ()) -> None:
        self.positions = sorted(c.pos for c in comments)

    def _between(self, span: Span, parts: Iterable[Span | Pos]) -> bool:
        """True when a comment inside ``span`` comes before the start of one of its ``parts``
        (spans or start positions): joining the parts on one line would separate the comment
        from its neighbour."""
        if not self.positions:
            return False
        first, last = start_of(span), end_of(span)
        inside = [pos for pos in self.positions if first <= pos <= last]
        starts = [start_of(p) if isinstance(p, Span) else p for p in parts]
        return any(start > pos for pos in inside for start in starts)

    def expr_apart(self, e: Expr) -> bool:
        """True when ``e`` must not be written on one line (a comment among its terms)."""
        if isinstance(e, Atom) or not self.positions:
            return False
        terms = (e.term,) if isinstance(e, Not) else e.terms
        return self._between(e.span, (t.span for t in terms)) or any(map(self.expr_apart, terms))

    def sexp_apart(self, span: Span, items: tuple[SExp, ...]) -> bool:
        """True when a pass-through form must not be written on one line."""
        if not self.positions:
            return False
        return self._between(span, (i.span for i in items)) or any(
            self.sexp_apart(i.span, i.items) for i in items if isinstance(i, SList)
        )

    # ---- expressions ---------------------------------------------------------------------

    def expr(self, e: Expr, indent: str) -> list[Line]:
        """An expression, broken at connectives if too wide or holding a comment."""
        one = indent + expr_line(e)
        if isinstance(e, Atom) or (len(one) <= WIDTH and not self.expr_apart(e)):
            return [Line(one, start_of(e.span), end_of(e.span))]
        if isinstance(e, Not):
            inner = self.expr(e.term, indent + _STEP)
            head = Line(indent + "(Not", start_of(e.span), head_end(e.span, "Not"))
            return close([head, *inner], e.span)
        word = "And" if isinstance(e, And) else "Or"
        lines = [Line(indent + "(" + word, start_of(e.span), head_end(e.span, word))]
        for term in e.terms:
            lines.extend(self.expr(term, indent + _STEP))
        return close(lines, e.span)

    def terms(self, head: str, terms: tuple[Expr, ...], span: Span) -> list[Line]:
        """``(:goal ...)``-style block of expressions."""
        if len(terms) == 1 and not (
            self._between(span, [terms[0].span]) or self.expr_apart(terms[0])
        ):
            one = f"{_STEP}({head} {expr_line(terms[0])})"
            if len(one) <= WIDTH:
                return [Line(one, start_of(span), end_of(span))]
        body = [line for t in terms for line in self.expr(t, _STEP * 2)]
        return self.block(head, body, span)

    # ---- generic pieces ------------------------------------------------------------------

    def block(self, head: str, body: list[Line], span: Span, indent: str = _STEP) -> list[Line]:
        """``(head`` then body lines, closing on the last line (``(head)`` when empty)."""
        if not body:
            return [Line(f"{indent}({head})", start_of(span), end_of(span))]
        first = Line(f"{indent}({head}", start_of(span), head_end(span, head))
        return close([first, *body], span)

    def sexp_lines(self, head: str, items: tuple[SExp, ...], span: Span, indent: str) -> list[Line]:
        """A pass-through form, on one line when it fits."""
        one = indent + "(" + " ".join([head, *(sexp(i) for i in items)]) + ")"
        if not items or (len(one) <= WIDTH and not self.sexp_apart(span, items)):
            return [Line(one, start_of(span), end_of(span))]
        lines = [Line(indent + "(" + head, start_of(span), head_end(span, head))]
        for item in items:
            if isinstance(item, SList) and item.items:
                first = item.items[0]
                if isinstance(first, Symbol | Number):
                    lines.extend(
                        self.sexp_lines(sexp(first), item.items[1:], item.span, indent + _STEP)
                    )
                    continue
            lines.append(Line(indent + _STEP + sexp(item), start_of(item.span), end_of(item.span)))
        return close(lines, span)

    # ---- blocks --------------------------------------------------------------------------

    def region(self, region: ast.Region, indent: str) -> list[Line]:
        inner = indent + _STEP
        spans = dict(region.prop_spans)
        body: list[Line] = []

        def prop(keyword: str, text: str) -> None:
            span = spans.get(keyword, region.span)
            body.append(Line(f"{inner}({text})", start_of(span), end_of(span)))

        if region.target is not None:
            prop("target", f":target {region.target}")
        if region.ranges:
            prop("ranges", ":ranges (" + " ".join(_rect(r) for r in region.ranges) + ")")
        if region.yaw_rotation:
            prop(
                "yaw_rotation",
                ":yaw_rotation (" + " ".join(map(_numbers, region.yaw_rotation)) + ")",
            )
        if region.rgba is not None:
            prop("rgba", f":rgba {_numbers(region.rgba)}")
        for section in region.extra:
            body.extend(self.sexp_lines(":" + section.keyword, section.items, section.span, inner))
        return self.block(region.name, body, region.span, indent)

    def declarations(
        self, keyword: str, decls: tuple[ast.TypedName, ...], span: Span
    ) -> list[Line]:
        """``:fixtures`` / ``:objects``: ``a b - cat`` groups, one line when it fits."""
        out: list[Line] = []
        for group_lines in _declaration_blocks(decls, _STEP * 2):
            text = _STEP * 2 + " ".join(line.text.strip() for line in group_lines)
            apart = self._between(span, (g.start for g in group_lines[1:] if g.start))
            if len(group_lines) > 1 and len(text) <= WIDTH and not apart:
                # one line, so that a Beyond Blocks variant differs in this line only
                group_lines = [Line(text, group_lines[0].start, group_lines[-1].end)]
            out.extend(self.block(":" + keyword, group_lines, span))
        return out

    def problem(self, p: ast.Problem) -> list[Line]:
        """Every line of ``p``: the ``(define`` line, the blocks in canonical order."""
        spans: dict[str, Span] = {}
        for keyword, span in p.blocks:
            spans.setdefault(keyword, span)

        def at(keyword: str) -> Span:
            return spans.get(keyword, NO_SPAN)

        def line(keyword: str, text: str) -> list[Line]:
            return [Line(_STEP + text, start_of(at(keyword)), end_of(at(keyword)))]

        lines = [
            Line(
                f"(define (problem {p.name})",
                start_of(p.span),
                head_end(p.span, f"define (problem {p.name})"),
            )
        ]
        if p.domain is not None:
            lines += line("domain", f"(:domain {p.domain})")
        if p.language is not None:
            text = f" {p.language}" if p.language else ""
            lines += line("language", f"(:language{text})")
        if p.question is not None:
            parts = []
            if p.question.source is not None:
                parts.append(f"(:source {_source(p.question)})")
            if p.question.choices is not None:
                parts.append(f"(:choices {number(p.question.choices)})")
            lines += line("question", "(" + " ".join([":question", *parts]) + ")")
        if p.instruction is not None:
            chosen = p.instruction.choices
            parts = [f"(:templates {' '.join(map(_template_choice, chosen))})"] if chosen else []
            lines += line("instruction", "(" + " ".join([":instruction", *parts]) + ")")
        if _present(p, "regions", bool(p.regions)):
            body = [x for r in p.regions for x in self.region(r, _STEP * 2)]
            lines += self.block(":regions", body, at("regions"))
        for keyword, decls in (("fixtures", p.fixtures), ("objects", p.objects)):
            if _present(p, keyword, bool(decls)):
                lines += self.declarations(keyword, decls, at(keyword))
        if _present(p, "obj_of_interest", bool(p.obj_of_interest)):
            name_spans = p.obj_of_interest_spans or (NO_SPAN,) * len(p.obj_of_interest)
            body = [
                Line(_STEP * 2 + name, start_of(s), end_of(s))
                for name, s in zip(p.obj_of_interest, name_spans, strict=True)
            ]
            lines += self.block(":obj_of_interest", body, at("obj_of_interest"))
        if p.candidate_names is not None:
            lines += line("candidates", "(" + " ".join([":candidates", *p.candidates]) + ")")
        if p.options is not None:
            if p.options.rule == "fixed":
                pairs = " ".join(f"({letter} {name})" for letter, name in p.options.pairs)
                lines += line("options", f"(:options (:map {pairs}))")
            elif p.options.rule:
                lines += line("options", f"(:options (:map {p.options.rule}))")
            else:
                lines += line("options", "(:options)")
        if _present(p, "init", bool(p.init)):
            body = [x for e in p.init for x in self.expr(e, _STEP * 2)]
            lines += self.block(":init", body, at("init"))
        for keyword, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms)):
            if _present(p, keyword, bool(terms)):
                lines += self.terms(":" + keyword, terms, at(keyword))
        if p.cost_terms is not None:
            lines += self.terms(":cost", p.cost_terms, at("cost"))
        if p.layout is not None:
            parts = []
            if p.layout.min_spacing is not None:
                parts.append(f"(:min_spacing {number(p.layout.min_spacing)})")
            if p.layout.yaw_range is not None:
                parts.append(f"(:yaw_range {_numbers(p.layout.yaw_range)})")
            lines += line("layout", "(" + " ".join([":layout", *parts]) + ")")
        if p.answer_zone is not None:
            text = " ".join([":answer_zone", *p.answer_zone.regions])
            lines += line("answer_zone", f"({text})")
        for section in p.sections:
            lines += self.sexp_lines(":" + section.keyword, section.items, section.span, _STEP)
        return close(lines, p.span)


_BARE = re.compile(r"[a-z_][a-z0-9_\-]*", re.I)


def _value(value: str | int | float) -> str:
    """A source parameter value: a number, a bare name, or a quoted string."""
    if isinstance(value, int | float):
        return number(value)
    return value if _BARE.fullmatch(value) else f'"{value}"'


def _source(q: Question) -> str:
    """``arithmetic``, ``(mmlu_pro (:subject biology))`` or ``(:file "q.jsonl")``."""
    if q.file is not None:
        return f'(:file "{q.file}")'
    if not q.params:
        return str(q.source)
    params = " ".join(
        "(" + " ".join([f":{prm.name}", *map(_value, prm.values)]) + ")" for prm in q.params
    )
    return f"({q.source} {params})"


def _template_choice(choice: TemplateChoice) -> str:
    """``seen``, ``(:file "t.txt")`` or ``(:eval unseen)``."""
    text = choice.set_name if choice.set_name is not None else f'(:file "{choice.file}")'
    return f"(:{choice.split} {text})" if choice.split else str(text)


def _rect(r: ast.Rect) -> str:
    return _numbers((r.x0, r.y0, r.x1, r.y1))


def _present(p: ast.Problem, keyword: str, has_content: bool) -> bool:
    return has_content or any(k == keyword for k, _ in p.blocks)


def _declaration_blocks(decls: tuple[ast.TypedName, ...], indent: str) -> list[list[Line]]:
    """Lines of ``a b - cat`` groups, split into several blocks where an untyped group is
    followed by more names (untyped names only parse at the end of a block)."""
    blocks: list[list[Line]] = [[]]
    group: list[ast.TypedName] = []

    def flush() -> None:
        category = group[0].category
        text = indent + " ".join(d.name for d in group) + (f" - {category}" if category else "")
        end = max(end_of(group[-1].span), end_of(group[-1].category_span))
        blocks[-1].append(Line(text, start_of(group[0].span), end))
        if not category:
            blocks.append([])

    for decl in decls:
        if group and decl.category != group[0].category:
            flush()
            group = []
        group.append(decl)
    if group:
        flush()
    return [b for b in blocks if b] or [[]]


def format_problem(problem: ast.Problem, comments: list[Comment] | None = None) -> str:
    """The canonical text of ``problem`` (ends with a newline).

    Args:
        problem: the parsed task.
        comments: the source's comments (see :func:`find_comments`), placed by the source
            positions recorded in the problem's nodes.
    """
    comments = comments or []
    layout = _Layout(comments)
    return "\n".join(place_comments(layout.problem(problem), comments)) + "\n"


def format_text(text: str, path: str = "<string>") -> str:
    """Parse ``text`` and return its canonical layout (comments kept in place).

    Raises:
        TaskFileError: on a syntax error.
    """
    problem = parse_text(text, path)
    return format_problem(problem, find_comments(text))
