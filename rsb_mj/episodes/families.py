"""Table families: how the frozen tables of a suite are built, checked and audited.

Every suite names its family (:attr:`rsb_mj.suites.Suite.family`); its tables live in
``tasks/episodes`` under the one manifest (:data:`rsb_mj.episodes.table.MANIFEST`):

* ``rsb``: seeded draws kept balanced (:mod:`rsb_mj.episodes.table`); checked by re-drawing
  every row from its seed; audited by :func:`rsb_mj.episodes.audit.audit`;
* ``a2a``: paired tables, every item in each plate order (:mod:`rsb_mj.episodes.paired`);
  checked by rebuilding them from their items; audited by
  :func:`rsb_mj.episodes.paired_audit.audit_paired`.

A table given by path is audited by the family of the suite its rows name, and as ``rsb``
(seeded draws) when they name none (a task file's rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.errors import RsbError
from rsb_mj.suites import A2A_SUITES, ALL_SUITES, Suite, get_suite

if TYPE_CHECKING:
    from rsb_mj.episode import Episode
    from rsb_mj.episodes.audit import AuditReport


def _check_rsb(suites: list[Suite], folder: Path | None, complete: bool) -> list[str]:
    from rsb_mj.episodes.table import check_tables as check_seeded

    return check_seeded([s.name for s in suites], folder, complete=complete, lint=False)


def _check_paired(suites: list[Suite], folder: Path | None, complete: bool) -> list[str]:
    from rsb_mj.episodes.paired import check_paired

    return check_paired(suites, folder, complete)


def _audit_rsb(*args: Any) -> AuditReport:
    from rsb_mj.episodes.audit import audit

    return audit(*args)


def _audit_paired(*args: Any) -> AuditReport:
    from rsb_mj.episodes.paired_audit import audit_paired

    return audit_paired(*args)


@dataclass(frozen=True)
class Family:
    """One table family.

    Attributes:
        name: the :attr:`~rsb_mj.suites.Suite.family` value.
        design: how its tables are made, for messages.
        check: ``check(suites, folder, complete) -> problems``.
        audit: ``audit(rows, label, max_words, train) -> AuditReport``.
    """

    name: str
    design: str
    check: Callable[[list[Suite], Path | None, bool], list[str]]
    audit: Callable[..., AuditReport]


#: Family name -> :class:`Family`.
FAMILIES: dict[str, Family] = {
    "rsb": Family("rsb", "seeded draws kept balanced", _check_rsb, _audit_rsb),
    "a2a": Family("a2a", "paired items in both plate orders", _check_paired, _audit_paired),
}


def family_of(suite: str | Suite) -> Family:
    """The family of ``suite`` (a name or a :class:`~rsb_mj.suites.Suite`).

    Raises:
        RsbError: for an unknown suite, or a suite of a family with no entry.
    """
    s = get_suite(suite) if isinstance(suite, str) else suite
    try:
        return FAMILIES[s.family]
    except KeyError:
        raise RsbError(
            f"suite {s.name}: unknown table family {s.family!r}; valid choices: "
            + ", ".join(FAMILIES)
        ) from None


def family_of_rows(rows: list[Episode]) -> Family:
    """The family a table's rows belong to: their suite's, or ``rsb`` for rows that name no
    suite (a task file's seeded rows)."""
    if rows and rows[0].suite:
        try:
            return family_of(rows[0].suite)
        except RsbError:
            pass
    return FAMILIES["rsb"]


def audit_rows(
    rows: list[Episode],
    label: str,
    max_words: int | None = None,
    train: list[Episode] | None = None,
) -> AuditReport:
    """The audit of ``rows`` by their family (:func:`family_of_rows`)."""
    return family_of_rows(rows).audit(rows, label, max_words, train)


def every_suite() -> list[Suite]:
    """Every suite with frozen tables: the RSB suites (levels included), then the A2A ones."""
    return [*ALL_SUITES.values(), *A2A_SUITES.values()]


def check_tables(
    suites: list[str] | None = None,
    folder: Path | None = None,
    complete: bool = True,
) -> list[str]:
    """Verify the frozen tables of ``suites`` (default: every suite) against the one
    manifest, each by its family; the shipped template files are linted first. Returns the
    problems found (empty when all is well).

    Args:
        complete: a table of a wanted suite missing from the manifest is a problem too.
    """
    from rsb_mj.episodes.table import lint_templates

    wanted = [get_suite(s) for s in suites] if suites else every_suite()
    problems = lint_templates()
    for family in FAMILIES.values():
        members = [s for s in wanted if s.family == family.name]
        if members:
            problems += family.check(members, folder, complete)
    return problems


__all__ = [
    "FAMILIES",
    "Family",
    "audit_rows",
    "check_tables",
    "every_suite",
    "family_of",
    "family_of_rows",
]
