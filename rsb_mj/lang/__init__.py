"""The rsb task language: grammar, typed AST, linter and formatter.

Public API::

    parse_text(text, path="<string>") -> Problem   # syntax only; raises TaskError
    parse_file(path) -> Problem                    # syntax only; raises TaskError
    load_task(path) -> Problem                     # parse + lint; raises TaskError on errors

See :mod:`rsb_mj.lang.ast` for the node types and :mod:`rsb_mj.lang.vocabulary` for the
categories and predicates.
"""

from __future__ import annotations

from rsb_mj.lang.ast import (
    NO_SPAN,
    And,
    Atom,
    Expr,
    Instruction,
    Layout,
    Name,
    Not,
    Number,
    NumberList,
    OptionMap,
    Or,
    Problem,
    Question,
    Rect,
    Region,
    Section,
    SList,
    Span,
    Symbol,
    TypedName,
    Variable,
    walk_atoms,
)
from rsb_mj.lang.vocabulary import RSB_CATEGORIES, CategoryInfo

__all__ = [
    "NO_SPAN",
    "RSB_CATEGORIES",
    "And",
    "Atom",
    "CategoryInfo",
    "Expr",
    "Instruction",
    "Layout",
    "Name",
    "Not",
    "Number",
    "NumberList",
    "OptionMap",
    "Or",
    "Problem",
    "Question",
    "Rect",
    "Region",
    "SList",
    "Section",
    "Span",
    "Symbol",
    "TypedName",
    "Variable",
    "walk_atoms",
]
