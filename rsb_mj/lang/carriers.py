"""What the rule callbacks of :class:`~rsb_mj.lang.transformer.AstBuilder` hand up to each
other before a node is built, and the helpers that read a rule's children by type.

A rule's children are Lark tokens (``str`` subclasses with positions: every token is kept,
so a rule's children run from its opening ``(`` to its closing ``)``), AST nodes, and the
carriers below; they are always read by type, never by position.
"""

from __future__ import annotations

from typing import Any

from rsb_mj.lang import ast
from rsb_mj.lang.expr import And, Atom, Expr, Not, Or
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.numbers import read_float

__all__ = [
    "Carrier",
    "FileRef",
    "Names",
    "Part",
    "Prop",
    "Token",
    "declarations_of",
    "exprs_of",
    "first_props",
    "floats_of",
    "props_of",
    "span_of",
    "span_over",
    "tokens_of",
]

#: A token: Lark's ``Token``, a ``str`` subclass with ``type``, ``line``, ``column``,
#: ``end_line`` and ``end_column``. Every other child a callback sees (AST nodes,
#: :class:`Part`, :class:`Prop`) is not a str. (Typed as ``str``: this module does not import
#: Lark.)
Token = str


def span_of(token: Token) -> Span:
    """The :class:`~rsb_mj.lang.nodes.Span` of a token."""
    return Span(token.line, token.column, token.end_line, token.end_column)


def span_over(children: list[Any]) -> Span:
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
    return Span(first.line, first.column, last.end_line, last.end_column)


class Carrier:
    """A keyword, a value and a span, handed from one rule callback to the next (a plain
    slotted class: the parser makes thousands and never compares them)."""

    __slots__ = ("keyword", "span", "value")

    def __init__(self, keyword: str, value: Any, span: Span) -> None:
        self.keyword = keyword
        self.value = value
        self.span = span


class Part(Carrier):
    """A top-level block on its way into :class:`~rsb_mj.lang.ast.Problem`.

    Attributes:
        keyword: block keyword, lower case, without the colon (``"objects"``).
        value: the block's content (its AST value).
        span: the block's source span.
    """

    __slots__ = ()


class Prop(Carrier):
    """A keyword property inside a block, e.g. ``(:target table)``."""

    __slots__ = ()


def tokens_of(children: list[Any], *types: str) -> list[Token]:
    """The tokens among ``children`` whose type is one of ``types`` (``"NAME"``, ...)."""
    return [c for c in children if isinstance(c, str) and c.type in types]


class Names(tuple):
    """A tuple of names that also carries their spans (``spans``)."""

    spans: tuple[Span, ...] = ()


def floats_of(children: list[Any]) -> tuple[float, ...]:
    """The values of the NUMBER tokens (:func:`~rsb_mj.lang.numbers.read_float`)."""
    return tuple(read_float(t) for t in tokens_of(children, "NUMBER"))


def exprs_of(children: list[Any]) -> tuple[Expr, ...]:
    """The expression nodes among ``children``."""
    return tuple(c for c in children if isinstance(c, Atom | And | Or | Not))


def props_of(children: list[Any]) -> list[Prop]:
    """The :class:`Prop` carriers among ``children``."""
    return [c for c in children if isinstance(c, Prop)]


def first_props(children: list[Any]) -> tuple[dict[str, Prop], tuple[Span, ...]]:
    """The first property of each keyword, and the spans of repeats (a lint error)."""
    first: dict[str, Prop] = {}
    repeated: list[Span] = []
    for prop in props_of(children):
        if prop.keyword in first:
            repeated.append(prop.span)
        else:
            first[prop.keyword] = prop
    return first, tuple(repeated)


class FileRef:
    """``(:file "path")``: the path as written (quotes removed)."""

    __slots__ = ("path", "span")

    def __init__(self, path: str, span: Span) -> None:
        self.path = path
        self.span = span


def declarations_of(children: list[Any]) -> tuple[ast.TypedName, ...]:
    """Group ``a b - cat c - cat2`` into typed names; a trailing untyped name gets ``""``."""
    out: list[ast.TypedName] = []
    pending: list[Token] = []
    for child in children:
        if isinstance(child, str) and child.type == "NAME":
            pending.append(child)
        elif isinstance(child, Prop):
            out.extend(
                ast.TypedName(str(t), child.value, span=span_of(t), category_span=child.span)
                for t in pending
            )
            pending = []
    out.extend(ast.TypedName(str(t), "", span=span_of(t)) for t in pending)
    return tuple(out)
