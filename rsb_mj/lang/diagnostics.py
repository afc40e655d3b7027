"""Diagnostics: what the parser and the linter report, and how it is printed.

Text form (one finding)::

    tasks/x.bddl:3:5: RSB102 unexpected-token: unexpected ':goall'; expected one of: ...
        3 |   (:goall (And (In ?answer table_answer_zone)))
          |    ^^^^^^

JSON form: one object per finding with the keys of :meth:`Diagnostic.to_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rsb_mj.errors import TaskError
from rsb_mj.lang.nodes import NO_SPAN, Span

#: Severity values, most severe first.
SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a task or template file.

    Attributes:
        code: stable code, e.g. ``"RSB102"`` (1xx syntax, 2xx names and types, 3xx geometry
            and placement, 4xx semantics and leakage).
        name: kebab-case rule name, e.g. ``"unexpected-token"``.
        severity: ``"error"`` or ``"warning"``.
        message: what is wrong, naming the valid choices where there are any.
        path: the file.
        span: where (1-based line and column; end column exclusive).
        fix: a suggested replacement or action, or None.
    """

    code: str
    name: str
    severity: str
    message: str
    path: str
    span: Span = NO_SPAN
    fix: str | None = None

    @property
    def is_error(self) -> bool:
        """True for severity ``"error"``."""
        return self.severity == "error"

    def header(self) -> str:
        """``path:line:col: CODE name: message``."""
        return (
            f"{self.path}:{self.span.line}:{self.span.column}: "
            f"{self.code} {self.name}: {self.message}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with code, name, severity, message, path, line, column, end_line,
        end_column, fix."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "fix": self.fix,
        }

    def render(self, source: str | None = None) -> str:
        """The header, then (given the file's text) the source line with a caret under the span,
        then the fix if any."""
        lines = [self.header()]
        if source is not None and self.span.line > 0:
            text_lines = source.splitlines()
            if self.span.line <= len(text_lines):
                line_text = text_lines[self.span.line - 1].expandtabs(1)
                number = str(self.span.line)
                pad = " " * len(number)
                start = max(self.span.column, 1)
                if self.span.end_line == self.span.line and self.span.end_column > start:
                    width = self.span.end_column - start
                else:
                    width = max(len(line_text) - start + 1, 1)
                lines.append(f"    {number} | {line_text}")
                lines.append(f"    {pad} | {' ' * (start - 1)}{'^' * width}")
        if self.fix:
            lines.append(f"    fix: {self.fix}")
        return "\n".join(lines)


class TaskFileError(TaskError):
    """A task file has errors; ``diagnostics`` lists them (the message shows them all).

    Attributes:
        diagnostics: the error diagnostics, in source order.
        summary: an optional first line saying what the diagnostics stand in the way of.
    """

    def __init__(self, diagnostics: list[Diagnostic], summary: str | None = None) -> None:
        self.diagnostics = list(diagnostics)
        self.summary = summary
        lines = [d.header() for d in self.diagnostics]
        super().__init__("\n".join([summary, *lines] if summary else lines))
