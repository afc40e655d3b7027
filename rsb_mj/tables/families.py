"""Table families: how the frozen tables of a suite are built, checked and audited.

Every suite names its family (:attr:`rsb_mj.suites.Suite.family`); its tables live in
``tasks/episodes`` under the one manifest (:data:`rsb_mj.tables.files.MANIFEST`):

* ``rsb``: seeded draws kept balanced (:mod:`rsb_mj.tables.rsb`); checked by re-drawing
  every row from its seed (:mod:`rsb_mj.tables.check`); audited by
  :func:`rsb_mj.tables.audit.audit`;
* ``a2a``: paired tables, every item in each plate order (:mod:`rsb_mj.tables.paired`);
  checked by rebuilding them from their items; audited by
  :func:`rsb_mj.tables.paired_audit.audit_paired`.

Each family also draws private eval tables from a secret (:attr:`Family.private`, for
:mod:`rsb_mj.tables.private.build`) and re-draws one of their rows from what it records
(:attr:`Family.redraw`), which is how a private table is checked without its secret.

A table given by path is audited by the family of the suite its rows name, and as ``rsb``
(seeded draws) when they name none (a task file's rows).

The families' modules are imported inside the functions that use them: they load numpy,
scipy and the sampler, which ``rsb --help`` (through :mod:`rsb_mj.tables.episode_source`)
must not pay for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.episodes.sampler import sample_episode
from rsb_mj.errors import RsbError
from rsb_mj.suites import A2A_SUITES, ALL_SUITES, Suite, get_suite
from rsb_mj.tables import files
from rsb_mj.tables.audit import audit
from rsb_mj.tables.check import check_tables as check_seeded
from rsb_mj.tables.check import lint_templates
from rsb_mj.tables.paired import check_paired, private_paired, redraw_row
from rsb_mj.tables.paired_audit import audit_paired
from rsb_mj.tables.rsb import private_rows

if TYPE_CHECKING:
    from rsb_mj.episodes.episode import Episode
    from rsb_mj.episodes.sources.base import QuestionSource
    from rsb_mj.lang.ast import Problem
    from rsb_mj.tables.audit import AuditReport
    from rsb_mj.tables.rsb import DrawRequest


def _check_rsb(
    suites: list[Suite],
    folder: Path | None,
    complete: bool,
    splits: tuple[str, ...],
    max_report: int = 5,
) -> list[str]:

    names = [s.name for s in suites]
    return check_seeded(names, folder, max_report, complete, lint=False, splits=splits)


def _check_paired(
    suites: list[Suite],
    folder: Path | None,
    complete: bool,
    splits: tuple[str, ...],
    max_report: int = 5,
) -> list[str]:

    return check_paired(suites, folder, complete, splits)  # names its first differing row


def _audit_rsb(*args: Any) -> AuditReport:

    return audit(*args)


def _audit_paired(*args: Any) -> AuditReport:

    return audit_paired(*args)


def _private_rsb(request: DrawRequest) -> tuple[list[Episode], dict[str, str]]:

    return private_rows(request), {}


def _private_paired(request: DrawRequest) -> tuple[list[Episode], dict[str, str]]:

    return private_paired(request)


def _redraw_rsb(problem: Problem, row: Episode, source: QuestionSource) -> Episode:

    return sample_episode(
        problem, suite=row.suite, split=row.split, index=row.index, seed=row.seed, source=source
    )


def _redraw_paired(problem: Problem, row: Episode, source: QuestionSource) -> Episode:

    return redraw_row(problem, row, source.get(row.question_id))


@dataclass(frozen=True)
class Family:
    """One table family.

    Attributes:
        name: the :attr:`~rsb_mj.suites.Suite.family` value.
        design: how its tables are made, for messages.
        check: ``check(suites, folder, complete, splits, max_report) -> problems``.
        audit: ``audit(rows, label, max_words, train, source) -> AuditReport``.
        private: ``private(request) -> (rows, dropped items)``: a private eval table
            (:mod:`rsb_mj.tables.private.build`) drawn from the request's secret seeds and
            held-out reserve (:class:`~rsb_mj.tables.rsb.DrawRequest`).
        redraw: ``redraw(problem, row, source) -> row``: a row drawn again from what it
            records (its seed and pins) with ``source`` as the question source: how
            ``rsb episodes check`` verifies a private table without its secret.
    """

    name: str
    design: str
    check: Callable[[list[Suite], Path | None, bool, tuple[str, ...], int], list[str]]
    audit: Callable[..., AuditReport]
    private: Callable[[DrawRequest], tuple[list[Episode], dict[str, str]]]
    redraw: Callable[[Problem, Episode, QuestionSource], Episode]


#: Family name -> :class:`Family`.
FAMILIES: dict[str, Family] = {
    "rsb": Family(
        "rsb",
        "seeded draws kept balanced",
        _check_rsb,
        _audit_rsb,
        _private_rsb,
        _redraw_rsb,
    ),
    "a2a": Family(
        "a2a",
        "paired items in both plate orders",
        _check_paired,
        _audit_paired,
        _private_paired,
        _redraw_paired,
    ),
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
    source: QuestionSource | None = None,
) -> AuditReport:
    """The audit of ``rows`` by their family (:func:`family_of_rows`); ``source``: the rows'
    question source when their ids do not name a built-in one (a task's own bank)."""
    return family_of_rows(rows).audit(rows, label, max_words, train, source)


def every_suite() -> list[Suite]:
    """Every suite with frozen tables: the RSB suites (levels included), then the A2A ones."""
    return [*ALL_SUITES.values(), *A2A_SUITES.values()]


def check_tables(
    suites: list[str] | None = None,
    folder: Path | None = None,
    max_report: int = 5,
    complete: bool = True,
) -> list[str]:
    """Verify the frozen tables of ``suites`` (default: every suite) against the one
    manifest, each by its family; the shipped template files are linted first. Returns the
    problems found (empty when all is well).

    Args:
        max_report: drifted rows named per RSB table (then a count).
        complete: a table of a wanted suite missing from the manifest is a problem too.
    """
    wanted = [get_suite(s) for s in suites] if suites else every_suite()
    problems = lint_templates()
    for family in FAMILIES.values():
        members = [s for s in wanted if s.family == family.name]
        if members:
            problems += family.check(members, folder, complete, ("eval", "train"), max_report)
    return problems


def verify_table(suite: str | Suite, split: str, folder: Path | None = None) -> Path:
    """Check the frozen table of ``suite`` and ``split`` against the one manifest before it
    is used (:func:`rsb_mj.tables.files.verify_listed`, the check of every kind of table:
    hashed once per file and process). Returns the table's path.

    Raises:
        EpisodeError: for a table missing from the folder or the manifest, or one whose
            bytes differ from the manifest's: the message names ``file:line`` of the first
            row that differs from what its family rebuilds (a hand-edited ``correct`` would
            otherwise score the wrong candidate as a success) and how to restore it.
    """
    s = suite if isinstance(suite, Suite) else get_suite(suite)
    # the files module's names are read at call time (tests point them at other folders)
    folder = files.episodes_dir() if folder is None else folder
    name = files.table_name(s.name, split)

    def drifted() -> list[str]:
        found = family_of(s).check([s], folder, True, (split,), 1)
        at_row = re.compile(re.escape(name) + r":\d+: ")
        return [f"{folder / p}" for p in found if at_row.match(p)]

    return files.verify_listed(folder, name, build=s.name, drifted=drifted)


def load_table(suite: str | Suite, split: str = "eval") -> list[Episode]:
    """The frozen table of ``suite`` (a name, or the suite it names) and ``split``, verified
    against the manifest first (:func:`verify_table`); what ``rsb eval`` reads.

    Raises:
        EpisodeError: for a missing, unlisted or changed table (see :func:`verify_table`).
    """
    return files.read_table(verify_table(suite, split))


__all__ = [
    "FAMILIES",
    "Family",
    "audit_rows",
    "check_tables",
    "every_suite",
    "family_of",
    "family_of_rows",
    "load_table",
    "verify_table",
]
