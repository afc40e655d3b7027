"""Parse task-language text into a :class:`~rsb_mj.lang.ast.Problem`.

The grammar is ``grammar/rsb.lark`` (found through :func:`rsb_mj.resources.grammar_path`, so it
works from a wheel too), compiled with ``parser="lalr"`` and ``strict=True`` (grammar conflicts
and terminal collisions are errors, not silent choices); its tables are cached under the user
cache folder (:func:`grammar`). The transformer runs inside the parser, so no intermediate
parse tree is built.

Well-formed files take a faster road: :mod:`rsb_mj.lang.fastparse` reads them with the same
rule callbacks and gives the identical AST, without importing Lark; anything else (every file
with an error) is parsed by Lark.

Syntax errors never escape as Lark exceptions: they become RSB1xx
:class:`~rsb_mj.lang.diagnostics.Diagnostic` objects:

* RSB101 ``unexpected-character``: a character no token can start with here;
* RSB102 ``unexpected-token``: a token the grammar does not allow here (expected ones listed);
* RSB103 ``unclosed-paren``: the file ends while a ``(`` is open;
* RSB104 ``unreadable-file``: the file cannot be read as UTF-8 text;
* RSB105 ``trailing-text``: text after the ``(define ...)`` form;
* RSB106 ``missing-define``: the file holds no ``(define (problem NAME) ...)`` at all;
* RSB107 ``number-out-of-range``: a number literal beyond +-1e9 (``1e300``, ``1e999``);
* RSB108 ``nesting-too-deep``: parentheses nested deeper than :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.errors import RsbError
from rsb_mj.lang.ast import Problem, Span
from rsb_mj.lang.diagnostics import Diagnostic, TaskFileError
from rsb_mj.lang.fastparse import Fallback, fast_parse
from rsb_mj.lang.transformer import MAX_MAGNITUDE, AstBuilder, NumberRangeError
from rsb_mj.resources import grammar_path

if TYPE_CHECKING:
    from lark import Lark, Token
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


#: Options of the LALR parser (part of the cache key).
_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "strict": True,
    "maybe_placeholders": False,
    "keep_all_tokens": True,
}


def _to_ast() -> Any:
    """An :class:`~rsb_mj.lang.transformer.AstBuilder` that Lark can run inside its parser."""
    from lark import Transformer

    class ToAst(AstBuilder, Transformer):
        def __init__(self) -> None:
            Transformer.__init__(self, visit_tokens=False)

    return ToAst()


def tables_path(grammar_text: str) -> Path | None:
    """Where the LALR tables of ``grammar_text`` are cached (None: no cache root).

    The name holds a hash of the grammar, the parser options and the Lark and Python
    versions, so a changed grammar or an upgrade never reads stale tables.
    """
    import hashlib
    import sys

    import lark

    from rsb_mj.lang.cache import cache_root

    root = cache_root()
    if root is None:
        return None
    key = "\n".join([grammar_text, repr(sorted(_OPTIONS.items())), lark.__version__, sys.version])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]
    return root / "lang" / f"rsb-lalr-{digest}.pickle"


@functools.cache
def grammar() -> Lark:
    """The compiled LALR parser (built once per process).

    Building the LALR tables takes a few hundred milliseconds, so they are cached on first use
    under :func:`tables_path` (written atomically) and loaded from there afterwards (a few
    milliseconds). A cache that cannot be read or written (read-only home, unwritable
    ``RSB_MJ_CACHE``, a damaged file) is skipped silently: the tables are then built in memory.
    """
    import io
    import pickle

    from lark import Lark

    from rsb_mj.atomic import atomic_write_bytes

    text = grammar_path().read_text(encoding="utf-8")
    path = tables_path(text)
    damaged = (OSError, EOFError, pickle.UnpicklingError, KeyError, TypeError, ValueError)
    if path is not None:
        with contextlib.suppress(*damaged), path.open("rb") as fh:  # missing or damaged: rebuild
            return Lark.__new__(Lark)._load(fh, transformer=_to_ast())
    parser = Lark(text, transformer=_to_ast(), **_OPTIONS)
    if path is not None:
        buffer = io.BytesIO()
        parser.save(buffer, exclude_options=("transformer",))
        with contextlib.suppress(OSError, RsbError):  # read-only cache: build in memory again
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, buffer.getvalue())
    return parser


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
        import difflib  # (only for findings: not paid by clean files)

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


def parse_source(text: str, path: str = "<string>") -> tuple[Problem | None, list[Diagnostic]]:
    """Parse ``text``; return the problem (None on a syntax error) and the syntax diagnostics."""
    if text.startswith("\ufeff"):
        text = text[1:]
    deep = too_deep(text, path)
    if deep is not None:
        return None, [deep]
    try:
        problem = fast_parse(text)
    except Fallback:
        problem = None
    if problem is not None:
        return dataclasses.replace(problem, path=path), []
    from lark.exceptions import UnexpectedInput

    try:
        problem = grammar().parse(text)
    except UnexpectedInput as err:
        return None, [syntax_diagnostic(err, text, path)]
    except NumberRangeError as err:
        text_ = str(err.token)
        shown = repr(text_) if len(text_) <= 24 else f"'{text_[:12]}...' ({len(text_)} characters)"
        reason = (
            f"is out of range; task-file numbers lie within +-{MAX_MAGNITUDE:.0e}".replace(
                "e+0", "e"
            )
            if err.finite
            else "is too large for a 64-bit float"
        )
        return None, [
            Diagnostic(
                "RSB107",
                "number-out-of-range",
                "error",
                f"number {shown} {reason}",
                path,
                _token_span(err.token),
            )
        ]
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
