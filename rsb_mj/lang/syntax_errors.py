"""The parser's findings: Lark's errors and the checks around it as RSB1xx diagnostics.

Syntax errors never reach the user as Lark exceptions: :func:`syntax_diagnostic` turns each
into one :class:`~rsb_mj.lang.diagnostics.Diagnostic` with the position and what the grammar
expects there, named as a reader knows them (``'('``, ``a name``, ``':choices'``):

* RSB101 ``unexpected-character``: a character no token can start with here;
* RSB102 ``unexpected-token``: a token the grammar does not allow here (expected ones listed,
  with the closest keyword as the fix);
* RSB103 ``unclosed-paren``: the file ends while a ``(`` is open (the ``(`` is pointed at);
* RSB105 ``trailing-text``: text after the ``(define ...)`` form;
* RSB106 ``missing-define``: the file holds no ``(define (problem NAME) ...)`` at all;
* RSB107 ``number-out-of-range`` (:func:`number_out_of_range`): a number literal beyond
  +-1e9 (``1e300``, ``1e999``);
* RSB108 ``nesting-too-deep`` (:func:`too_deep`, checked before parsing): parentheses nested
  deeper than :data:`MAX_DEPTH` levels.

(RSB104 ``unreadable-file`` comes from :func:`rsb_mj.lang.parser.read_source`.)
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.grammar import grammar
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.numbers import MAX_MAGNITUDE, NumberRangeError

if TYPE_CHECKING:  # pragma: no cover
    from lark import Token
    from lark.exceptions import UnexpectedInput

#: How terminals are named in messages.
_TERMINAL_WORDS = {
    "LPAR": "'('",
    "RPAR": "')'",
    "NAME": "a name",
    "NUMBER": "a number",
    "VARIABLE": "a variable (?name)",
    "KEYWORD": "a :keyword",
    "STRING": 'a "string"',
    "WORD": "a word",
    "DASH": "'-'",
    "$END": "the end of the file",
    "<END-OF-FILE>": "the end of the file",
}
_END = frozenset({"$END", "<END-OF-FILE>"})


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[terminal]
    try:
        term = grammar().get_terminal(terminal)
    except KeyError:
        return terminal.lower()
    if term.pattern.type == "str":
        return f"'{term.pattern.value}'"
    return terminal.lower()


def _expected(names: set[str] | frozenset[str]) -> list[str]:
    return sorted({_describe(n) for n in names})


def _keyword_literals(names: set[str] | frozenset[str]) -> list[str]:
    out = []
    for n in names:
        if n in _TERMINAL_WORDS:
            continue
        try:
            term = grammar().get_terminal(n)
        except KeyError:
            continue
        if term.pattern.type == "str":
            out.append(term.pattern.value)
    return out


def _token_span(token: Token) -> Span:
    end_col = token.end_column if token.end_column is not None else token.column + len(token)
    end_line = token.end_line if token.end_line is not None else token.line
    return Span(token.line, token.column, end_line, end_col)


def _unclosed_paren(text: str) -> Span | None:
    """Position of the innermost ``(`` still open at the end of ``text`` (comments skipped)."""
    stack: list[tuple[int, int]] = []
    line, col = 1, 1
    in_comment = False
    for ch in text:
        if in_comment:
            if ch == "\n":
                in_comment = False
        elif ch == ";":
            in_comment = True
        elif ch == "(":
            stack.append((line, col))
        elif ch == ")" and stack:
            stack.pop()
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
    if not stack:
        return None
    ln, cl = stack[-1]
    return Span(ln, cl, ln, cl + 1)


def syntax_diagnostic(err: UnexpectedInput, text: str, path: str) -> Diagnostic:
    """Turn a Lark error into an RSB1xx diagnostic with a clear message."""
    # lark is imported on first parse: importing the parser or linter (rsb --help) loads none
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        expected = _expected(err.allowed or set())
        return Diagnostic(
            "RSB101",
            "unexpected-character",
            "error",
            f"unexpected character {char!r}; expected " + _one_of(expected),
            path,
            Span(err.line, err.column, err.line, err.column + 1),
        )
    if not isinstance(err, UnexpectedToken):  # UnexpectedEOF: not raised by LALR, kept safe
        line, column = max(getattr(err, "line", 1), 1), max(getattr(err, "column", 1), 1)
        return Diagnostic(
            "RSB103",
            "unclosed-paren",
            "error",
            "the file ends too early",
            path,
            Span(line, column, line, column + 1),
        )
    token = err.token
    if token.type == "$END":
        if not text.strip() or not _has_define(text):
            return _missing_define(text, path)
        open_at = _unclosed_paren(text) or Span(1, 1, 1, 2)
        lines = text.count("\n") + 1
        return Diagnostic(
            "RSB103",
            "unclosed-paren",
            "error",
            f"'(' at line {open_at.line} column {open_at.column} is never closed "
            f"(the file ends at line {lines}); expected " + _one_of(_expected(err.expected)),
            path,
            open_at,
            fix="add the missing ')'",
        )
    span = _token_span(token)
    if token.type == "WORD":  # only free :language text matches it: a stray character
        return Diagnostic(
            "RSB101",
            "unexpected-character",
            "error",
            f"unexpected character {str(token)[0]!r}; expected " + _one_of(_expected(err.expected)),
            path,
            Span(token.line, token.column, token.line, token.column + 1),
        )
    if err.expected and set(err.expected) <= _END:
        return Diagnostic(
            "RSB105",
            "trailing-text",
            "error",
            f"unexpected {str(token)!r} after the end of the (define ...) form",
            path,
            span,
            fix="remove the extra text or ')'",
        )
    if token.line == 1 and token.column == 1 and token.type != "LPAR":
        return _missing_define(text, path)
    expected = _expected(err.expected)
    message = f"unexpected {str(token)!r}; expected " + _one_of(expected)
    fix = None
    if token.type in ("KEYWORD", "NAME"):
        close = difflib.get_close_matches(
            str(token).lower(), _keyword_literals(err.expected), n=1, cutoff=0.6
        )
        if close:
            message += f"; did you mean {close[0]!r}?"
            fix = close[0]
    return Diagnostic("RSB102", "unexpected-token", "error", message, path, span, fix=fix)


def _has_define(text: str) -> bool:
    return "define" in text.lower()


def _missing_define(text: str, path: str) -> Diagnostic:
    return Diagnostic(
        "RSB106",
        "missing-define",
        "error",
        "no task found: a task file holds one (define (problem NAME) ...) form",
        path,
        Span(1, 1, 1, 2),
    )


def _one_of(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return "one of: " + ", ".join(words)


#: Deepest parenthesis nesting accepted (real task files nest fewer than 10 levels; the AST
#: and formatter recurse once per level, and Python's stack is finite).
MAX_DEPTH = 100
_PAREN_OR_COMMENT = re.compile(r"[()]|;[^\n]*")


def too_deep(text: str, path: str) -> Diagnostic | None:
    """RSB108 at the first ``(`` nested deeper than :data:`MAX_DEPTH`, else None."""
    if text.count("(") <= MAX_DEPTH:
        return None
    depth = 0
    for match in _PAREN_OR_COMMENT.finditer(text):
        char = match.group()
        if char == "(":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
                return Diagnostic(
                    "RSB108",
                    "nesting-too-deep",
                    "error",
                    f"parentheses nest deeper than {MAX_DEPTH} levels",
                    path,
                    Span(line, column, line, column + 1),
                )
        elif char == ")":
            depth = max(depth - 1, 0)
    return None


def number_out_of_range(err: NumberRangeError, path: str) -> Diagnostic:
    """RSB107 at a number literal beyond +-:data:`~rsb_mj.lang.numbers.MAX_MAGNITUDE`."""
    text = str(err.token)
    shown = repr(text) if len(text) <= 24 else f"'{text[:12]}...' ({len(text)} characters)"
    reason = (
        f"is out of range; task-file numbers lie within +-{MAX_MAGNITUDE:.0e}".replace("e+0", "e")
        if err.finite
        else "is too large for a 64-bit float"
    )
    return Diagnostic(
        "RSB107",
        "number-out-of-range",
        "error",
        f"number {shown} {reason}",
        path,
        _token_span(err.token),
    )
