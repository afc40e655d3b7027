"""Parse task-language text into a :class:`~rsb_mj.lang.ast.Problem`.

One parser, one grammar: :func:`rsb_mj.lang.grammar.grammar` (``grammar/rsb.lark``, Lark's
LALR parser with cached tables and the AST builder inside). Syntax errors never escape as
Lark exceptions: they become RSB1xx :class:`~rsb_mj.lang.diagnostics.Diagnostic` objects
(:mod:`rsb_mj.lang.syntax_errors`); RSB104 ``unreadable-file`` is :func:`read_source`'s.

Lark is imported on the first parse, not with this module.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.diagnostics import Diagnostic, TaskFileError
from rsb_mj.lang.grammar import grammar
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.numbers import NumberRangeError
from rsb_mj.lang.syntax_errors import (
    number_out_of_range,
    syntax_diagnostic,
    too_deep,
)

__all__ = ["parse_file", "parse_source", "parse_text", "read_source"]


def parse_source(text: str, path: str = "<string>") -> tuple[Problem | None, list[Diagnostic]]:
    """Parse ``text``; return the problem (None on a syntax error) and the syntax diagnostics.

    A leading byte-order mark is skipped; ``Problem.path`` is ``path``.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    deep = too_deep(text, path)
    if deep is not None:
        return None, [deep]
    # lark is imported on first parse: importing the parser or linter (rsb --help) loads none
    from lark.exceptions import UnexpectedInput

    try:
        problem = grammar().parse(text)
    except UnexpectedInput as err:
        return None, [syntax_diagnostic(err, text, path)]
    except NumberRangeError as err:
        return None, [number_out_of_range(err, path)]
    return dataclasses.replace(problem, path=path), []


def parse_text(text: str, path: str = "<string>") -> Problem:
    """Parse task-language ``text`` (syntax only, no lint).

    Args:
        text: the file's contents.
        path: the name used in messages and stored in ``Problem.path``.

    Raises:
        TaskFileError: (a :class:`~rsb_mj.errors.TaskError`) with the RSB1xx diagnostic.
    """
    problem, diagnostics = parse_source(text, path)
    if problem is None:
        raise TaskFileError(diagnostics)
    return problem


def read_source(path: str | Path) -> tuple[str | None, list[Diagnostic]]:
    """Read a file as UTF-8; on failure return None and an RSB104 diagnostic."""
    try:
        return Path(path).read_text(encoding="utf-8"), []
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return None, [
            Diagnostic(
                "RSB104",
                "unreadable-file",
                "error",
                f"cannot read the file as UTF-8 text: {reason}",
                str(path),
                Span(1, 1, 1, 2),
            )
        ]


def parse_file(path: str | Path) -> Problem:
    """Parse the task file at ``path`` (syntax only, no lint).

    Raises:
        TaskFileError: for an unreadable file or a syntax error (RSB1xx diagnostic).
    """
    text, diagnostics = read_source(path)
    if text is None:
        raise TaskFileError(diagnostics)
    return parse_text(text, str(path))
