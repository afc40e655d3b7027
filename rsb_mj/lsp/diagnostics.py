"""The linter's findings as LSP diagnostics.

Each :class:`rsb_mj.lang.diagnostics.Diagnostic` becomes one LSP diagnostic: the same code,
severity and range, the message prefixed with the rule's name (``rsb lint``'s
``CODE name: message``, the code shown by the editor), ``source`` ``"rsb"``, and ``data`` the
finding exactly as ``rsb lint --format json`` prints it. A finding located in another file
(a line of a question bank or of a template file the task names) is shown at the task's
``(:file ...)`` reference, its message naming that file and line, with the location as
related information.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from rsb_mj.lang import ast
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.nodes import Span
from rsb_mj.lsp.analysis import Analysis
from rsb_mj.lsp.positions import Positions

SOURCE = "rsb"
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def file_references(problem: ast.Problem | None) -> list[tuple[str, Span]]:
    """Each ``(:file "...")`` path of ``problem`` as written, with the span of its form."""
    if problem is None:
        return []
    out = []
    if problem.question is not None and problem.question.file is not None:
        out.append((problem.question.file, problem.question.source_span))
    if problem.instruction is not None:
        out += [(c.file, c.span) for c in problem.instruction.choices if c.file is not None]
    return out


def _reference_span(analysis: Analysis, other: Path) -> Span:
    """Where the task names ``other`` (the problem's first line when it does not)."""
    for written, span in file_references(analysis.problem):
        if (analysis.path.parent / written).resolve() == other.resolve():
            return span
    return Span(1, 1, 1, 1)


def to_lsp(d: Diagnostic, analysis: Analysis, positions: Positions) -> types.Diagnostic:
    """The LSP diagnostic of finding ``d`` of ``analysis``."""
    message = f"{d.name}: {d.message}"
    related = None
    span = d.span
    if Path(d.path) != analysis.path:
        other = Path(d.path)
        span = _reference_span(analysis, other)
        message = f"{d.name}: {d.path}:{d.span.line}:{d.span.column}: {d.message}"
        line = max(d.span.line - 1, 0)
        where = types.Range(types.Position(line, 0), types.Position(line, 0))
        related = [
            types.DiagnosticRelatedInformation(
                types.Location(other.resolve().as_uri(), where), d.message
            )
        ]
    if d.fix:
        message += f" (fix: {d.fix})"
    return types.Diagnostic(
        range=positions.span_range(span),
        message=message,
        severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
        code=d.code,
        source=SOURCE,
        related_information=related,
        data=d.to_dict(),
    )


def publishable(analysis: Analysis, encoding: str) -> list[types.Diagnostic]:
    """Every finding of ``analysis`` as LSP diagnostics, in the linter's order."""
    positions = Positions(analysis.text, encoding)
    return [to_lsp(d, analysis, positions) for d in analysis.diagnostics]
