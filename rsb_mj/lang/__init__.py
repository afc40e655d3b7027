"""The rsb task language: grammar, typed AST, linter and formatter.

Public API::

    parse_text(text, path="<string>") -> Problem   # syntax only; raises TaskError
    parse_file(path) -> Problem                    # syntax only; raises TaskError
    load_task(path) -> Problem                     # parse + lint; raises TaskError on errors
    lint_text(text, path) -> (Problem | None, [Diagnostic])
    lint_file(path) -> (text | None, [Diagnostic])  # task files and template files
    lint_template(text, path, choices) -> [Diagnostic]
    format_text(text, path) -> str                  # canonical layout (comments kept)
    with allow_roots([DIR]): ...                    # files a task names may lie under DIR
    RULES: code -> Rule (name, severity, doc, bad and good example)

See :mod:`rsb_mj.lang.ast` and :mod:`rsb_mj.lang.nodes` for the node types, and
:mod:`rsb_mj.lang.categories`, :mod:`~rsb_mj.lang.predicates` and
:mod:`~rsb_mj.lang.block_values` for the categories, predicates and block values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rsb_mj.lazy import lazy_exports

#: Public name -> defining module, imported on first access: ``rsb_mj.lang.files`` (what
#: ``rsb lint`` needs to find the files and ``rsb lint --explain``) stays light.
_EXPORTS: dict[str, str] = {
    "NO_SPAN": "rsb_mj.lang.nodes",
    "And": "rsb_mj.lang.expr",
    "AnswerZone": "rsb_mj.lang.blocks",
    "Atom": "rsb_mj.lang.expr",
    "Expr": "rsb_mj.lang.expr",
    "Instruction": "rsb_mj.lang.blocks",
    "Layout": "rsb_mj.lang.blocks",
    "Name": "rsb_mj.lang.expr",
    "Not": "rsb_mj.lang.expr",
    "Number": "rsb_mj.lang.expr",
    "NumberList": "rsb_mj.lang.expr",
    "OptionMap": "rsb_mj.lang.blocks",
    "Or": "rsb_mj.lang.expr",
    "Problem": "rsb_mj.lang.ast",
    "Question": "rsb_mj.lang.blocks",
    "Rect": "rsb_mj.lang.ast",
    "Region": "rsb_mj.lang.ast",
    "Section": "rsb_mj.lang.expr",
    "SList": "rsb_mj.lang.expr",
    "SourceParam": "rsb_mj.lang.blocks",
    "TemplateChoice": "rsb_mj.lang.blocks",
    "Span": "rsb_mj.lang.nodes",
    "Symbol": "rsb_mj.lang.expr",
    "TypedName": "rsb_mj.lang.ast",
    "Variable": "rsb_mj.lang.expr",
    "walk_atoms": "rsb_mj.lang.expr",
    "Diagnostic": "rsb_mj.lang.diagnostics",
    "TaskFileError": "rsb_mj.lang.diagnostics",
    "format_problem": "rsb_mj.lang.formatter",
    "format_text": "rsb_mj.lang.formatter",
    "lint_file": "rsb_mj.lang.linter",
    "lint_problem": "rsb_mj.lang.linter",
    "lint_text": "rsb_mj.lang.linter",
    "load_task": "rsb_mj.lang.linter",
    "parse_file": "rsb_mj.lang.parser",
    "parse_text": "rsb_mj.lang.parser",
    "RULES": "rsb_mj.lang.linter",  # the linter imports every rule family (templates too)
    "Rule": "rsb_mj.lang.rules",
    "lint_template": "rsb_mj.lang.templates",
    "allow_roots": "rsb_mj.lang.files",
    "RSB_CATEGORIES": "rsb_mj.lang.categories",
    "CategoryInfo": "rsb_mj.lang.categories",
}

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.lang.ast import Problem, Rect, Region, TypedName
    from rsb_mj.lang.blocks import (
        AnswerZone,
        Instruction,
        Layout,
        OptionMap,
        Question,
        SourceParam,
        TemplateChoice,
    )
    from rsb_mj.lang.categories import RSB_CATEGORIES, CategoryInfo
    from rsb_mj.lang.diagnostics import Diagnostic, TaskFileError
    from rsb_mj.lang.expr import (
        And,
        Atom,
        Expr,
        Name,
        Not,
        Number,
        NumberList,
        Or,
        Section,
        SList,
        Symbol,
        Variable,
        walk_atoms,
    )
    from rsb_mj.lang.files import allow_roots
    from rsb_mj.lang.formatter import format_problem, format_text
    from rsb_mj.lang.linter import lint_file, lint_problem, lint_text, load_task
    from rsb_mj.lang.nodes import NO_SPAN, Span
    from rsb_mj.lang.parser import parse_file, parse_text
    from rsb_mj.lang.rules import RULES, Rule
    from rsb_mj.lang.templates import lint_template


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "NO_SPAN",
    "RSB_CATEGORIES",
    "RULES",
    "And",
    "AnswerZone",
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
    "SourceParam",
    "Span",
    "Symbol",
    "TaskFileError",
    "TemplateChoice",
    "TypedName",
    "Variable",
    "allow_roots",
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
