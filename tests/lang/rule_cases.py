"""One failing fixture per lint rule, shared by the rule families' tests.

A case is ``(code, base, old, new, line, column, message)``: it edits a valid task (``BASE``,
``BASE_10``, ``LIBERO`` or ``A2A_BASE`` in lang_samples.py) in one place, replacing the first
``old`` with ``new``, and names the exact position and message of the rule's first finding.
Each family's test module holds its cases in ``CASES`` and checks them with
:func:`first_finding` against :func:`expected`; ``tests/lang/test_rules.py`` checks that
every rule has a case.
"""

from __future__ import annotations

from rsb_mj.lang import RULES, lint_text
from rsb_mj.lang.diagnostics import Diagnostic

from .lang_samples import LIBERO, LIBERO_PATH

#: The argument names of a case, for ``pytest.mark.parametrize``.
FIELDS = ("code", "base", "old", "new", "line", "column", "message")


def path_of(base: str, code: str = "") -> str:
    """The file name a case's task is linted as (LIBERO's is its real file name; for RSB418,
    which checks only files of LIBERO's benchmark folders, in its ``libero_goal`` folder)."""
    if base is LIBERO and code == "RSB418":
        return f"libero_goal/{LIBERO_PATH}"
    return LIBERO_PATH if base is LIBERO else "rsb_test_4.bddl"


def lint_edit(
    base: str, old: str, new: str, target: str = "rsb", code: str = ""
) -> list[Diagnostic]:
    """The findings on ``base`` with its first ``old`` replaced by ``new``.

    LIBERO files are also checked as scenes rsb_mj must build (``target``: ``"rsb"``, or
    ``"question"`` for RSB510, which fires only then).

    Raises:
        AssertionError: when ``old`` is not in ``base`` or the edited task does not parse.
    """
    assert old in base, old
    problem, diagnostics = lint_text(
        base.replace(old, new, 1),
        path_of(base, code),
        target=target if base is LIBERO else None,
    )
    assert problem is not None
    return diagnostics


def first_finding(code: str, base: str, old: str, new: str) -> tuple | None:
    """``(line, column, message, name, severity, path)`` of the first finding of ``code`` on
    the edited task, or None when the rule did not fire."""
    target = "question" if code == "RSB510" else "rsb"
    hits = [d for d in lint_edit(base, old, new, target, code) if d.code == code]
    if not hits:
        return None
    first = hits[0]
    return (
        first.span.line,
        first.span.column,
        first.message,
        first.name,
        first.severity,
        first.path,
    )


def expected(code: str, base: str, line: int, column: int, message: str) -> tuple:
    """What :func:`first_finding` must return for a case: its position and message, the
    rule's registered name and severity, and the file name the case is linted as."""
    rule = RULES[code]
    return (line, column, message, rule.name, rule.severity, path_of(base, code))
