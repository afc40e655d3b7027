"""Source spans and the base of every AST node (:mod:`rsb_mj.lang.ast`, :mod:`rsb_mj.lang.expr`).

Every node is a frozen dataclass with value equality from :class:`Node`; its source
:class:`Span` (``span``) is left out of equality, hashing and ``repr``, so that tests can write
``assert parse_text(src) == expected`` with hand-built nodes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

__all__ = ["NO_SPAN", "Node", "Span", "node"]


class Span(NamedTuple):
    """A source range, 1-based: ``line:column`` of the first character to ``end_line:end_column``
    (exclusive end column, as Lark reports it).

    A named tuple: immutable, ordered by position, and cheap to build (a parse makes one per
    node, tens of thousands when linting a folder)."""

    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


#: The span of nodes built by hand (not parsed).
NO_SPAN = Span()


class Node:
    """Base of the AST nodes: value equality, hashing and ``repr`` over the fields declared to
    take part in them (spans and other positions do not), written once here instead of being
    generated for each of the ~20 node classes: ``rsb lint`` imports this module at every
    start, and generating them cost about 10 ms of it."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _key(self) == _key(other)

    def __hash__(self) -> int:
        return hash((self.__class__, _key(self)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(type(self)))
        return f"{type(self).__qualname__}({shown})"


#: A node class: a frozen dataclass whose equality, hash and ``repr`` come from :class:`Node`.
node = dataclass(frozen=True, eq=False, repr=False)


@functools.cache
def _compared(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.compare)


@functools.cache
def _shown(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.repr)


def _key(node: Any) -> tuple[Any, ...]:
    return tuple(getattr(node, name) for name in _compared(type(node)))
