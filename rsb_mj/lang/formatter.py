"""The canonical layout of task files (``rsb fmt``).

One layout for every file: blocks in a fixed order (domain, language, question, instruction,
regions, fixtures, objects, obj_of_interest, candidates, options, init, grasp, goal, cost,
layout, then pass-through blocks in source order), the declarations of ``:fixtures`` and
``:objects`` on one line below the keyword when they fit (else one ``names - category``
group per line), two-space indentation, closing
parentheses at the end of the last line of a form, numbers written as integers when they
are integral and otherwise with Python's shortest round-trip repr, and expressions on one
line when they fit in :data:`WIDTH` columns.

Formatting is an identity on the AST: ``parse(format(parse(text))) == parse(text)``.
Comments are kept: those before ``(define`` stay at the top, a comment inside a block moves
to the line above that block, and comments after the last block move to the end.
"""

from __future__ import annotations

from collections.abc import Iterable

from rsb_mj.lang import ast

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


def arg(a: ast.Arg) -> str:
    """Canonical text of a predicate argument."""
    if isinstance(a, ast.Name):
        return a.value
    if isinstance(a, ast.Variable):
        return f"?{a.name}" + (f" - {a.kind}" if a.kind else "")
    if isinstance(a, ast.Number):
        return number(a.value)
    return _numbers(a.values)


def expr_line(e: ast.Expr) -> str:
    """An expression on one line."""
    if isinstance(e, ast.Atom):
        return "(" + " ".join([e.predicate, *(arg(a) for a in e.args)]) + ")"
    if isinstance(e, ast.Not):
        return f"(Not {expr_line(e.term)})"
    word = "And" if isinstance(e, ast.And) else "Or"
    return "(" + " ".join([word, *(expr_line(t) for t in e.terms)]) + ")"


def expr_lines(e: ast.Expr, indent: str) -> list[str]:
    """An expression as lines starting with ``indent``, broken at connectives if too wide."""
    one = indent + expr_line(e)
    if len(one) <= WIDTH or isinstance(e, ast.Atom):
        return [one]
    if isinstance(e, ast.Not):
        inner = expr_lines(e.term, indent + _STEP)
        return [indent + "(Not", *inner[:-1], inner[-1] + ")"]
    word = "And" if isinstance(e, ast.And) else "Or"
    lines = [indent + "(" + word]
    for term in e.terms:
        lines.extend(expr_lines(term, indent + _STEP))
    lines[-1] += ")"
    return lines


def sexp(item: ast.SExp) -> str:
    """A generic s-expression on one line."""
    if isinstance(item, ast.Symbol):
        return item.value
    if isinstance(item, ast.Number):
        return number(item.value)
    if isinstance(item, ast.Variable):
        return "?" + item.name
    return "(" + " ".join(sexp(i) for i in item.items) + ")"


def _sexp_lines(head: str, items: tuple[ast.SExp, ...], indent: str) -> list[str]:
    one = indent + "(" + " ".join([head, *(sexp(i) for i in items)]) + ")"
    if len(one) <= WIDTH or not items:
        return [one]
    lines = [indent + "(" + head]
    for item in items:
        if isinstance(item, ast.SList) and item.items:
            first = item.items[0]
            if isinstance(first, ast.Symbol | ast.Number):
                lines.extend(_sexp_lines(sexp(first), item.items[1:], indent + _STEP))
                continue
        lines.append(indent + _STEP + sexp(item))
    lines[-1] += ")"
    return lines


def _block(head: str, body: list[str], indent: str) -> list[str]:
    """``(head`` then body lines, closing on the last line (``(head)`` when empty)."""
    if not body:
        return [f"{indent}({head})"]
    return [f"{indent}({head}", *body[:-1], body[-1] + ")"]


def _declaration_blocks(decls: tuple[ast.TypedName, ...], indent: str) -> list[list[str]]:
    """Lines of ``a b - cat`` groups, split into several blocks where an untyped group is
    followed by more names (untyped names only parse at the end of a block)."""
    blocks: list[list[str]] = [[]]
    group: list[str] = []
    category: str | None = None

    def flush() -> None:
        blocks[-1].append(indent + " ".join(group) + (f" - {category}" if category else ""))
        if not category:
            blocks.append([])

    for decl in decls:
        if group and decl.category != category:
            flush()
            group = []
        group.append(decl.name)
        category = decl.category
    if group:
        flush()
    return [b for b in blocks if b] or [[]]


def _region(region: ast.Region, indent: str) -> list[str]:
    inner = indent + _STEP
    body: list[str] = []
    if region.target is not None:
        body.append(f"{inner}(:target {region.target})")
    if region.ranges:
        rects = " ".join(_numbers((r.x0, r.y0, r.x1, r.y1)) for r in region.ranges)
        body.append(f"{inner}(:ranges ({rects}))")
    if region.yaw_rotation:
        pairs = " ".join(_numbers(p) for p in region.yaw_rotation)
        body.append(f"{inner}(:yaw_rotation ({pairs}))")
    if region.rgba is not None:
        body.append(f"{inner}(:rgba {_numbers(region.rgba)})")
    for section in region.extra:
        body.extend(_sexp_lines(":" + section.keyword, section.items, inner))
    return _block(region.name, body, indent)


def _terms(head: str, terms: tuple[ast.Expr, ...], indent: str) -> list[str]:
    if len(terms) == 1:
        one = f"{indent}({head} {expr_line(terms[0])})"
        if len(one) <= WIDTH:
            return [one]
    body: list[str] = []
    for term in terms:
        body.extend(expr_lines(term, indent + _STEP))
    return _block(head, body, indent)


def _present(p: ast.Problem, keyword: str, has_content: bool) -> bool:
    return has_content or any(k == keyword for k, _ in p.blocks)


def block_lines(p: ast.Problem) -> list[tuple[str, list[str]]]:
    """``(keyword, lines)`` of every block in canonical order (indent: two spaces)."""
    i = _STEP
    out: list[tuple[str, list[str]]] = []
    if p.domain is not None:
        out.append(("domain", [f"{i}(:domain {p.domain})"]))
    if p.language is not None:
        text = f" {p.language}" if p.language else ""
        out.append(("language", [f"{i}(:language{text})"]))
    if p.question is not None:
        parts = []
        if p.question.source is not None:
            parts.append(f"(:source {p.question.source})")
        if p.question.choices is not None:
            parts.append(f"(:choices {number(p.question.choices)})")
        out.append(("question", [f"{i}(" + " ".join([":question", *parts]) + ")"]))
    if p.instruction is not None:
        parts = [f"(:templates {p.instruction.templates})"] if p.instruction.templates else []
        out.append(("instruction", [f"{i}(" + " ".join([":instruction", *parts]) + ")"]))
    if _present(p, "regions", bool(p.regions)):
        body = [line for r in p.regions for line in _region(r, i + _STEP)]
        out.append(("regions", _block(":regions", body, i)))
    for keyword, decls in (("fixtures", p.fixtures), ("objects", p.objects)):
        if _present(p, keyword, bool(decls)):
            lines = []
            for body in _declaration_blocks(decls, i + _STEP):
                one = i + _STEP + " ".join(line.strip() for line in body)
                if len(body) > 1 and len(one) <= WIDTH:
                    body = [one]  # a Beyond Blocks variant then differs in this one line
                lines.extend(_block(":" + keyword, body, i))
            out.append((keyword, lines))
    if _present(p, "obj_of_interest", bool(p.obj_of_interest)):
        body = [i + _STEP + name for name in p.obj_of_interest]
        out.append(("obj_of_interest", _block(":obj_of_interest", body, i)))
    if p.candidate_names is not None:
        out.append(("candidates", [f"{i}(" + " ".join([":candidates", *p.candidates]) + ")"]))
    if p.options is not None:
        if p.options.rule == "fixed":
            pairs = " ".join(f"({letter} {name})" for letter, name in p.options.pairs)
            out.append(("options", [f"{i}(:options (:map {pairs}))"]))
        elif p.options.rule:
            out.append(("options", [f"{i}(:options (:map {p.options.rule}))"]))
        else:
            out.append(("options", [f"{i}(:options)"]))
    if _present(p, "init", bool(p.init)):
        body = [line for e in p.init for line in expr_lines(e, i + _STEP)]
        out.append(("init", _block(":init", body, i)))
    for keyword, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms)):
        if _present(p, keyword, bool(terms)):
            out.append((keyword, _terms(":" + keyword, terms, i)))
    if p.cost_terms is not None:
        out.append(("cost", _terms(":cost", p.cost_terms, i)))
    if p.layout is not None:
        parts = []
        if p.layout.min_spacing is not None:
            parts.append(f"(:min_spacing {number(p.layout.min_spacing)})")
        if p.layout.yaw_range is not None:
            parts.append(f"(:yaw_range {_numbers(p.layout.yaw_range)})")
        out.append(("layout", [f"{i}(" + " ".join([":layout", *parts]) + ")"]))
    for section in p.sections:
        out.append((section.keyword, _sexp_lines(":" + section.keyword, section.items, i)))
    return out


def comments_of(text: str) -> list[tuple[int, str]]:
    """``(line, comment text)`` of every ``;`` comment in ``text`` (quoted strings skipped)."""
    out: list[tuple[int, str]] = []
    for number_, line in enumerate(text.splitlines(), start=1):
        in_string = False
        for index, char in enumerate(line):
            if char == '"':
                in_string = not in_string
            elif char == ";" and not in_string:
                out.append((number_, line[index:].rstrip()))
                break
    return out


def format_problem(problem: ast.Problem, comments: list[tuple[int, str]] | None = None) -> str:
    """The canonical text of ``problem`` (ends with a newline).

    Args:
        problem: the parsed task.
        comments: ``(line, text)`` comments of the source (see :func:`comments_of`); placed
            by the block spans recorded in ``problem.blocks``.
    """
    comments = sorted(comments or [])
    start = problem.span.line if problem.span.line > 0 else 0
    header = [text for line, text in comments if line < start]
    # Each comment inside (define ...) belongs to the first block (in source order) that
    # ends on or after its line; the rest trail the file.
    owned: dict[str, list[str]] = {}
    trailing: list[str] = []
    for line, text in comments:
        if line < start:
            continue
        owner = next((k for k, span in problem.blocks if span.end_line >= line), None)
        if owner is None:
            trailing.append(text)
        else:
            owned.setdefault(owner, []).append(text)
    lines = [*header, f"(define (problem {problem.name})"]
    for keyword, body in block_lines(problem):
        lines.extend(_STEP + text for text in owned.pop(keyword, []))
        lines.extend(body)
    for texts in owned.values():  # blocks that print nothing (e.g. an empty duplicate)
        trailing.extend(texts)
    lines[-1] += ")"
    return "\n".join([*lines, *trailing]) + "\n"


def format_text(text: str, path: str = "<string>") -> str:
    """Parse ``text`` and return its canonical layout (comments kept).

    Raises:
        TaskFileError: on a syntax error.
    """
    from rsb_mj.lang.parser import parse_text

    problem = parse_text(text, path)
    return format_problem(problem, comments_of(text))
