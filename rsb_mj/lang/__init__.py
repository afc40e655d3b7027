"""The rsb task language: grammar, typed AST, linter and formatter.

Public API::

    parse_text(text, path="<string>") -> Problem   # syntax only; raises TaskError
    parse_file(path) -> Problem                    # syntax only; raises TaskError
    load_task(path) -> Problem                     # parse + lint; raises TaskError on errors
    lint_text(text, path) -> (Problem | None, [Diagnostic])
    lint_file(path) -> (text | None, [Diagnostic])  # task files and template files
    lint_template(text, path, choices) -> [Diagnostic]
    format_text(text, path) -> str                  # canonical layout (comments kept)
    RULES: code -> Rule (name, severity, doc, bad and good example)

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
from rsb_mj.lang.diagnostics import Diagnostic, TaskFileError
from rsb_mj.lang.formatter import format_problem, format_text
from rsb_mj.lang.linter import lint_file, lint_problem, lint_text, load_task
from rsb_mj.lang.parser import parse_file, parse_text
from rsb_mj.lang.rules import RULES, Rule
from rsb_mj.lang.templates import lint_template
from rsb_mj.lang.vocabulary import RSB_CATEGORIES, CategoryInfo

__all__ = [
    "NO_SPAN",
    "RSB_CATEGORIES",
    "RULES",
    "And",
    "Atom",
    "CategoryInfo",
    "Diagnostic",
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
    "Rule",
    "SList",
    "Section",
    "Span",
    "Symbol",
    "TaskFileError",
    "TypedName",
    "Variable",
    "format_problem",
    "format_text",
    "lint_file",
    "lint_problem",
    "lint_template",
    "lint_text",
    "load_task",
    "parse_file",
    "parse_text",
    "walk_atoms",
]
