"""Build the typed AST of :mod:`rsb_mj.lang.ast` from the rules of ``grammar/rsb.lark``.

One method per grammar rule, named after it. Children are read by their type (token type or
AST class), never by position. Every node gets the :class:`~rsb_mj.lang.ast.Span` of its rule.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from rsb_mj.lang import ast
from rsb_mj.lang.vocabulary import canonical_predicate

#: A token: Lark's ``Token``, a ``str`` subclass with ``type``, ``line``, ``column``,
#: ``end_line`` and ``end_column``. Every other child a callback sees (AST nodes,
#: :class:`Part`, :class:`_Prop`) is not a str. (Typed as ``str``: this module does not import
#: Lark.)
Token = str


def span_of(token: Token) -> ast.Span:
    """The :class:`~rsb_mj.lang.ast.Span` of a token."""
    return ast.Span(token.line, token.column, token.end_line, token.end_column)


def _span(children: list[Any]) -> ast.Span:
    """From the start of the first child to the end of the last (tokens or spanned nodes).

    The parser keeps every token (``keep_all_tokens=True``), so a rule's children run from
    its opening ``(`` to its closing ``)``.
    """
    first, last = children[0], children[-1]
    # A token and a Span both have line, column, end_line, end_column.
    if not isinstance(first, str):
        first = first.span
    if not isinstance(last, str):
        last = last.span
    return ast.Span(first.line, first.column, last.end_line, last.end_column)


class _Carrier:
    """A keyword, a value and a span, handed from one rule callback to the next (a plain
    slotted class: the parser makes thousands and never compares them)."""

    __slots__ = ("keyword", "span", "value")

    def __init__(self, keyword: str, value: Any, span: ast.Span) -> None:
        self.keyword = keyword
        self.value = value
        self.span = span


class Part(_Carrier):
    """A top-level block on its way into :class:`~rsb_mj.lang.ast.Problem`.

    Attributes:
        keyword: block keyword, lower case, without the colon (``"objects"``).
        value: the block's content (its AST value).
        span: the block's source span.
    """

    __slots__ = ()


class _Prop(_Carrier):
    """A keyword property inside a block, e.g. ``(:target table)``."""

    __slots__ = ()


def _tokens(children: list[Any], *types: str) -> list[Token]:
    return [c for c in children if isinstance(c, str) and c.type in types]


#: Largest magnitude a number in a task file may have. Lengths are metres, angles radians,
#: forces newtons, part ids small integers: 1e9 leaves room for any real use while every
#: later computation (areas, packing bounds, squared distances) stays finite.
MAX_MAGNITUDE = 1e9


class _Names(tuple):
    """A tuple of names that also carries their spans (``spans``)."""

    spans: tuple[ast.Span, ...] = ()


class NumberRangeError(ValueError):
    """A number literal outside +-:data:`MAX_MAGNITUDE` (``1e300``, ``1e999``, ``10**400``);
    carries the token and whether a 64-bit float can hold it at all."""

    def __init__(self, token: Token, finite: bool) -> None:
        super().__init__(str(token))
        self.token = token
        self.finite = finite


def _float(token: Token) -> float:
    value = float(token)
    if not abs(value) <= MAX_MAGNITUDE:  # also catches inf (never nan: no such literal)
        raise NumberRangeError(token, math.isfinite(value))
    return value


def _floats(children: list[Any]) -> tuple[float, ...]:
    return tuple(_float(t) for t in _tokens(children, "NUMBER"))


def _exprs(children: list[Any]) -> tuple[ast.Expr, ...]:
    return tuple(c for c in children if isinstance(c, ast.Atom | ast.And | ast.Or | ast.Not))


def _props(children: list[Any]) -> list[_Prop]:
    return [c for c in children if isinstance(c, _Prop)]


def _first_props(children: list[Any]) -> tuple[dict[str, _Prop], tuple[ast.Span, ...]]:
    """The first property of each keyword, and the spans of repeats (a lint error)."""
    first: dict[str, _Prop] = {}
    repeated: list[ast.Span] = []
    for prop in _props(children):
        if prop.keyword in first:
            repeated.append(prop.span)
        else:
            first[prop.keyword] = prop
    return first, tuple(repeated)


class _FileRef:
    """``(:file "path")``: the path as written (quotes removed)."""

    __slots__ = ("path", "span")

    def __init__(self, path: str, span: ast.Span) -> None:
        self.path = path
        self.span = span


def _number(text: Token) -> float | int:
    value = _float(text)
    return (
        int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
    )


class AstBuilder:
    """The grammar's rule callbacks, producing :class:`~rsb_mj.lang.ast.Problem` from ``start``.

    Lark's LALR parser calls them as it reduces each rule (:func:`rsb_mj.lang.grammar.grammar`
    mixes this class into a ``lark.Transformer``), with every token kept, so no parse tree is
    built. :func:`rsb_mj.lang.parser.parse_source` sets ``Problem.path`` afterwards.
    """

    # ---- root --------------------------------------------------------------------------------

    def start(self, children: list[Any]) -> ast.Problem:
        name = next((c.value for c in children if isinstance(c, _Prop) and c.keyword == "name"), "")
        parts = [c for c in children if isinstance(c, Part)]
        fields: dict[str, Any] = {}
        sections: list[ast.Section] = []
        interest_spans: tuple[ast.Span, ...] = ()
        for part in parts:
            if part.keyword in _LIST_BLOCKS:
                key = _LIST_BLOCKS[part.keyword]
                fields[key] = fields.get(key, ()) + tuple(part.value)
                if part.keyword == "obj_of_interest":
                    interest_spans += part.value.spans
            elif part.keyword == "section":
                sections.append(part.value)
            else:
                fields[_SCALAR_BLOCKS[part.keyword]] = part.value
        return ast.Problem(
            name=name,
            sections=tuple(sections),
            blocks=tuple(
                (p.keyword if p.keyword != "section" else p.value.keyword, p.span) for p in parts
            ),
            span=_span(children),
            obj_of_interest_spans=interest_spans,
            **fields,
        )

    def problem_name(self, children: list[Any]) -> _Prop:
        (name,) = _tokens(children, "NAME")
        return _Prop("name", str(name), _span(children))

    # ---- LIBERO / VLA-Arena blocks -----------------------------------------------------------

    def domain(self, children: list[Any]) -> Part:
        (name,) = _tokens(children, "NAME")
        return Part("domain", str(name), _span(children))

    def language(self, children: list[Any]) -> Part:
        words = _tokens(children, "WORD")
        return Part("language", " ".join(words), _span(children))

    def regions(self, children: list[Any]) -> Part:
        return Part("regions", [c for c in children if isinstance(c, ast.Region)], _span(children))

    def fixtures(self, children: list[Any]) -> Part:
        return Part("fixtures", _declarations(children), _span(children))

    def objects(self, children: list[Any]) -> Part:
        return Part("objects", _declarations(children), _span(children))

    def decl_name(self, children: list[Any]) -> Token:
        (name,) = _tokens(children, "NAME")
        return name

    def decl_category(self, children: list[Any]) -> _Prop:
        (name,) = _tokens(children, "NAME")
        return _Prop("category", str(name), _span(children))

    def obj_of_interest(self, children: list[Any]) -> Part:
        tokens = _tokens(children, "NAME")
        names = _Names(str(t) for t in tokens)
        names.spans = tuple(span_of(t) for t in tokens)
        return Part("obj_of_interest", names, _span(children))

    def init(self, children: list[Any]) -> Part:
        return Part("init", _exprs(children), _span(children))

    def goal(self, children: list[Any]) -> Part:
        return Part("goal", _exprs(children), _span(children))

    def cost(self, children: list[Any]) -> Part:
        return Part("cost", _exprs(children), _span(children))

    # ---- regions -----------------------------------------------------------------------------

    def region(self, children: list[Any]) -> ast.Region:
        (name,) = _tokens(children, "NAME")
        fields: dict[str, Any] = {}
        extra: list[ast.Section] = []
        for prop in _props(children):
            if prop.keyword == "section":
                extra.append(prop.value)
            elif prop.keyword in ("ranges", "yaw_rotation"):
                fields[prop.keyword] = fields.get(prop.keyword, ()) + prop.value
            else:
                fields[prop.keyword] = prop.value
        prop_spans = []
        for child in children:
            if isinstance(child, Part):  # a generic (:keyword ...) property
                extra.append(child.value)
            if isinstance(child, _Prop | Part):
                prop_spans.append((child.keyword, child.span))
        return ast.Region(
            str(name),
            extra=tuple(extra),
            span=_span(children),
            prop_spans=tuple(prop_spans),
            **fields,
        )

    def target(self, children: list[Any]) -> _Prop:
        (name,) = _tokens(children, "NAME")
        return _Prop("target", str(name), _span(children))

    def ranges(self, children: list[Any]) -> _Prop:
        rects = tuple(c for c in children if isinstance(c, ast.Rect))
        return _Prop("ranges", rects, _span(children))

    def rect(self, children: list[Any]) -> ast.Rect:
        x0, y0, x1, y1 = _floats(children)
        return ast.Rect(x0, y0, x1, y1, span=_span(children))

    def yaw_rotation(self, children: list[Any]) -> _Prop:
        pairs = tuple(c for c in children if isinstance(c, tuple))
        return _Prop("yaw_rotation", pairs, _span(children))

    def pair(self, children: list[Any]) -> tuple[float, float]:
        lo, hi = _floats(children)
        return (lo, hi)

    def rgba(self, children: list[Any]) -> _Prop:
        return _Prop("rgba", _floats(children), _span(children))

    # ---- rsb blocks --------------------------------------------------------------------------

    def question(self, children: list[Any]) -> Part:
        values, repeated = _first_props(children)
        source = values.get("source")
        name, params, file = source.value if source is not None else (None, (), None)
        choices = values["choices"].value if "choices" in values else None
        node = ast.Question(
            name,
            choices,
            params,
            file,
            span=_span(children),
            repeated=repeated,
            source_span=source.span if source is not None else ast.NO_SPAN,
        )
        return Part("question", node, _span(children))

    def source(self, children: list[Any]) -> _Prop:
        (name,) = _tokens(children, "NAME")
        return _Prop("source", (str(name), (), None), _span(children))

    def source_call(self, children: list[Any]) -> _Prop:
        (name,) = _tokens(children, "NAME")
        params = tuple(c for c in children if isinstance(c, ast.SourceParam))
        return _Prop("source", (str(name), params, None), _span(children))

    def source_file(self, children: list[Any]) -> _Prop:
        (ref,) = (c for c in children if isinstance(c, _FileRef))
        return _Prop("source", (ast.FILE_SOURCE, (), ref.path), _span(children))

    def source_param(self, children: list[Any]) -> ast.SourceParam:
        (keyword,) = _tokens(children, "KEYWORD")
        values: list[str | int | float] = []
        for token in _tokens(children, "NAME", "STRING", "NUMBER"):
            if token.type == "NUMBER":
                values.append(_number(token))
            elif token.type == "STRING":
                values.append(str(token)[1:-1])
            else:
                values.append(str(token))
        return ast.SourceParam(str(keyword)[1:].lower(), tuple(values), span=_span(children))

    def file_ref(self, children: list[Any]) -> _FileRef:
        (path,) = _tokens(children, "STRING")
        return _FileRef(str(path)[1:-1], _span(children))

    def choices(self, children: list[Any]) -> _Prop:
        (number,) = _tokens(children, "NUMBER")
        return _Prop("choices", _number(number), _span(children))

    def instruction(self, children: list[Any]) -> Part:
        values, repeated = _first_props(children)
        chosen: tuple[ast.TemplateChoice, ...] = (
            values["templates"].value if "templates" in values else ()
        )
        plain = [c.set_name for c in chosen if c.split is None and c.set_name is not None]
        name = plain[0] if len(chosen) == 1 and plain else None
        node = ast.Instruction(name, chosen, span=_span(children), repeated=repeated)
        return Part("instruction", node, _span(children))

    def templates(self, children: list[Any]) -> _Prop:
        chosen = []
        for child in children:
            if isinstance(child, ast.TemplateChoice):
                chosen.append(child)
            elif isinstance(child, _FileRef):
                chosen.append(ast.TemplateChoice(None, None, child.path, span=child.span))
        return _Prop("templates", tuple(chosen), _span(children))

    def template_set(self, children: list[Any]) -> ast.TemplateChoice:
        (name,) = _tokens(children, "NAME")
        return ast.TemplateChoice(None, str(name), None, span=_span(children))

    def template_split(self, children: list[Any]) -> ast.TemplateChoice:
        (key,) = _tokens(children, "SPLIT_KEY")
        split = str(key)[1:].lower()
        for child in children:
            if isinstance(child, ast.TemplateChoice):
                return ast.TemplateChoice(split, child.set_name, None, span=_span(children))
            if isinstance(child, _FileRef):
                return ast.TemplateChoice(split, None, child.path, span=_span(children))
        raise AssertionError("template_split without a choice")  # the grammar forbids it

    def answer_zone(self, children: list[Any]) -> Part:
        names = tuple(str(t) for t in _tokens(children, "NAME"))
        return Part("answer_zone", ast.AnswerZone(names, span=_span(children)), _span(children))

    def candidates(self, children: list[Any]) -> Part:
        names = tuple(str(t) for t in _tokens(children, "NAME"))
        return Part("candidates", names, _span(children))

    def options(self, children: list[Any]) -> Part:
        maps = [c for c in children if isinstance(c, ast.OptionMap)]
        if not maps:
            return Part("options", ast.OptionMap("", span=_span(children)), _span(children))
        node = dataclasses.replace(maps[0], repeated=tuple(m.span for m in maps[1:]))
        return Part("options", node, _span(children))

    def map_named(self, children: list[Any]) -> ast.OptionMap:
        (name,) = _tokens(children, "NAME")
        return ast.OptionMap(str(name), span=_span(children))

    def map_pairs(self, children: list[Any]) -> ast.OptionMap:
        pairs = tuple(c for c in children if isinstance(c, tuple))
        return ast.OptionMap("fixed", pairs, span=_span(children))

    def map_pair(self, children: list[Any]) -> tuple[str, str]:
        letter, name = _tokens(children, "NAME")
        return (str(letter), str(name))

    def grasp(self, children: list[Any]) -> Part:
        return Part("grasp", _exprs(children), _span(children))

    def layout(self, children: list[Any]) -> Part:
        values = {p.keyword: p.value for p in _props(children)}
        node = ast.Layout(values.get("min_spacing"), values.get("yaw_range"), span=_span(children))
        return Part("layout", node, _span(children))

    def min_spacing(self, children: list[Any]) -> _Prop:
        (value,) = _floats(children)
        return _Prop("min_spacing", value, _span(children))

    def yaw_range(self, children: list[Any]) -> _Prop:
        (pair,) = (c for c in children if isinstance(c, tuple))
        return _Prop("yaw_range", pair, _span(children))

    # ---- expressions -------------------------------------------------------------------------

    def and_expr(self, children: list[Any]) -> ast.And:
        return ast.And(_exprs(children), span=_span(children))

    def or_expr(self, children: list[Any]) -> ast.Or:
        return ast.Or(_exprs(children), span=_span(children))

    def not_expr(self, children: list[Any]) -> ast.Not:
        (term,) = _exprs(children)
        return ast.Not(term, span=_span(children))

    def atom(self, children: list[Any]) -> ast.Atom:
        (predicate,) = _tokens(children, "NAME")
        args = tuple(c for c in children if not isinstance(c, str))
        return ast.Atom(canonical_predicate(str(predicate)), args, span=_span(children))

    def name(self, children: list[Any]) -> ast.Name:
        (token,) = _tokens(children, "NAME")
        return ast.Name(str(token), span=_span(children))

    def variable(self, children: list[Any]) -> ast.Variable:
        (var,) = _tokens(children, "VARIABLE")
        kinds = _tokens(children, "NAME")
        kind = str(kinds[-1]) if kinds else None
        return ast.Variable(str(var)[1:], kind, span=_span(children))

    def number(self, children: list[Any]) -> ast.Number:
        (value,) = _floats(children)
        return ast.Number(value, span=_span(children))

    def number_list(self, children: list[Any]) -> ast.NumberList:
        return ast.NumberList(_floats(children), span=_span(children))

    # ---- generic blocks ----------------------------------------------------------------------

    def generic_section(self, children: list[Any]) -> Part:
        (keyword,) = _tokens(children, "KEYWORD")
        items = tuple(c for c in children if not isinstance(c, str))
        node = ast.Section(str(keyword)[1:].lower(), items, span=_span(children))
        return Part("section", node, _span(children))

    def symbol(self, children: list[Any]) -> ast.Symbol:
        (token,) = children
        return ast.Symbol(str(token), span=_span(children))

    def slist(self, children: list[Any]) -> ast.SList:
        items = tuple(c for c in children if not isinstance(c, str))
        return ast.SList(items, span=_span(children))


def _declarations(children: list[Any]) -> tuple[ast.TypedName, ...]:
    """Group ``a b - cat c - cat2`` into typed names; a trailing untyped name gets ``""``."""
    out: list[ast.TypedName] = []
    pending: list[Token] = []
    for child in children:
        if isinstance(child, str) and child.type == "NAME":
            pending.append(child)
        elif isinstance(child, _Prop):
            out.extend(
                ast.TypedName(str(t), child.value, span=span_of(t), category_span=child.span)
                for t in pending
            )
            pending = []
    out.extend(ast.TypedName(str(t), "", span=span_of(t)) for t in pending)
    return tuple(out)


#: Blocks whose contents accumulate when a block appears twice (the linter flags the repeat).
_LIST_BLOCKS = {
    "regions": "regions",
    "fixtures": "fixtures",
    "objects": "objects",
    "obj_of_interest": "obj_of_interest",
    "init": "init",
    "goal": "goal_terms",
    "cost": "cost_terms",
    "grasp": "grasp_terms",
    "candidates": "candidate_names",
}
#: Blocks holding one value (the last one wins when repeated; the linter flags the repeat).
_SCALAR_BLOCKS = {
    "domain": "domain",
    "language": "language",
    "question": "question",
    "instruction": "instruction",
    "options": "options",
    "layout": "layout",
    "answer_zone": "answer_zone",
}
