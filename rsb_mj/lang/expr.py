"""The nodes inside blocks: expressions (``:init``, ``:goal``, ``:cost``, ``:grasp``) and the
generic s-expressions of blocks kept verbatim (``:camera``, ``:noise`` ...).

Re-exported by :mod:`rsb_mj.lang.ast` (``from rsb_mj.lang.ast import Atom`` is the usual
spelling); see :mod:`rsb_mj.lang.nodes` for equality and spans.
"""

from __future__ import annotations

from dataclasses import field
from typing import Union

from rsb_mj.lang.nodes import NO_SPAN, Node, Span
from rsb_mj.lang.nodes import node as _node

__all__ = [
    "And",
    "Arg",
    "Atom",
    "Expr",
    "Name",
    "Not",
    "Number",
    "NumberList",
    "Or",
    "SExp",
    "SList",
    "Section",
    "Symbol",
    "Variable",
    "walk_atoms",
]


# --------------------------------------------------------------------------------------------
# Expressions (:init, :goal, :cost, :grasp)
# --------------------------------------------------------------------------------------------


@_node
class Name(Node):
    """A bare name used as a predicate argument, e.g. ``block_a`` or ``table_answer_zone``."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Variable(Node):
    """A variable such as ``?answer`` (``name="answer"``) or ``?c - candidate`` (``kind``)."""

    name: str
    kind: str | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Number(Node):
    """A numeric argument, e.g. a distance threshold in metres (``0.05``)."""

    value: float
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class NumberList(Node):
    """A parenthesized list of numbers, e.g. VLA-Arena part ids ``(3 9 12)``."""

    values: tuple[float, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


Arg = Union[Name, Variable, Number, NumberList]  # noqa: UP007


@_node
class Atom(Node):
    """A predicate applied to arguments, e.g. ``(On block_a table_candidates)``.

    ``predicate`` uses the vocabulary's canonical spelling when the predicate is known
    (``On``, ``In``, ``Grasped`` ...), otherwise the spelling of the source.
    """

    predicate: str
    args: tuple[Arg, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class And(Node):
    """Conjunction of any number of terms."""

    terms: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Or(Node):
    """Disjunction of any number of terms."""

    terms: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Not(Node):
    """Negation of one term."""

    term: Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


Expr = Union[Atom, And, Or, Not]  # noqa: UP007


def walk_atoms(expr: Expr | None) -> tuple[Atom, ...]:
    """All atoms of ``expr`` in source order (depth first)."""
    if expr is None:
        return ()
    if isinstance(expr, Atom):
        return (expr,)
    if isinstance(expr, Not):
        return walk_atoms(expr.term)
    out: list[Atom] = []
    for term in expr.terms:
        out.extend(walk_atoms(term))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Generic s-expressions (perturbation and rendering blocks we keep but do not interpret)
# --------------------------------------------------------------------------------------------


@_node
class Symbol(Node):
    """A bare symbol or ``:keyword`` inside a generic block."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class SList(Node):
    """A parenthesized list inside a generic block."""

    items: tuple[SExp, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


SExp = Union[Symbol, Number, Variable, SList]  # noqa: UP007


@_node
class Section(Node):
    """A top-level block kept as s-expressions, e.g. ``(:camera ...)`` or ``(:noise ...)``.

    Attributes:
        keyword: the block keyword in lower case without the colon, e.g. ``"camera"``.
        items: the block's contents.
    """

    keyword: str
    items: tuple[SExp, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
