"""The check of a private folder without its secret (``rsb episodes check --tables DIR``,
:mod:`rsb_mj.tables.private.build`): sha256 and row counts against the manifest, every row drawn
again from what it records by its family, every question still in its reserve, and a
level's rows against its base's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rsb_mj.tables.files import (
    MANIFEST,
    diff_rows,
    read_listed_table,
    read_table,
    table_name,
)
from rsb_mj.tables.levels import LEVEL_FIELDS
from rsb_mj.tables.private.manifest import read_private, wanted_files
from rsb_mj.tables.private.secret import VERSION
from rsb_mj.tables.private.target import SPLIT, Target, target_of

if TYPE_CHECKING:
    from rsb_mj.episodes.episode import Episode
    from rsb_mj.suites import Suite
    from rsb_mj.tables.private.secret import Secret


def check_private(
    folder: Path,
    names: list[str] | None = None,
    secret: Secret | None = None,
    max_report: int = 5,
) -> list[str]:
    """Verify the private tables of ``folder`` (default: every one its manifest lists;
    ``names``: suites or task files) without their secret (see :mod:`rsb_mj.tables.private.build`);
    with ``secret``, also that the folder was drawn from it. Returns the problems found
    (``file:line: ...`` for a row), empty when all is well.

    Raises:
        EpisodeError: for a folder without a private manifest.
    """
    manifest = read_private(folder)
    problems = []
    if secret is not None and secret.id != manifest.secret_id:
        problems.append(
            f"{folder / MANIFEST}: drawn from another secret (id {manifest.secret_id[:12]}, "
            f"the secret file's {secret.id[:12]})"
        )
    if manifest.version != VERSION:
        return [
            *problems,
            f"{folder / MANIFEST}: drawn by private builder version {manifest.version}; this "
            f"rsb_mj draws version {VERSION} and cannot re-draw its rows",
        ]
    for file in wanted_files(manifest, names):
        entry = manifest.tables[file]
        found, rows = read_listed_table(Path(folder), file, entry)
        problems += found
        if rows is None:
            continue
        problems += _check_rows(file, rows, target_of(entry), max_report)
        suite = target_of(entry).suite
        if suite and suite.level:
            problems += _check_level(folder, file, suite, rows, max_report)
    return problems


def _check_rows(file: str, rows: list[Episode], target: Target, max_report: int) -> list[str]:
    """Rows that do not re-draw, or ask a question outside their reserve."""
    out: list[str] = []
    drifted = outside = 0
    source = target.source
    for row_no, row in enumerate(rows, start=1):
        if row.split != SPLIT:
            out.append(f"{file}:{row_no}: split {row.split!r}; a private table has eval rows")
            continue
        fresh = target.family.redraw(target.problem, row, source)
        fields = diff_rows(row, fresh)
        if fields:
            drifted += 1
            if drifted <= max_report:
                out.append(f"{file}:{row_no}: row {row.index} drifted in {', '.join(fields)}")
        if not source.holds(source.get(row.question_id)):
            outside += 1
            if outside <= max_report:
                out.append(
                    f"{file}:{row_no}: question {row.question_id} is not in the held-out "
                    f"reserve of {source.name} (a shipped table asks it)"
                )
    if drifted > max_report:
        out.append(f"{file}: {drifted} rows drifted in all")
    if outside > max_report:
        out.append(f"{file}: {outside} rows ask questions outside the reserve in all")
    return out


def _check_level(
    folder: Path, file: str, suite: Suite, rows: list[Episode], max_report: int
) -> list[str]:
    """A level's rows against its base's private rows: equal but in :data:`LEVEL_FIELDS`."""
    base_path = Path(folder) / table_name(suite.base, SPLIT)
    if not base_path.is_file():
        return [f"{file}: its base table {base_path.name} is missing"]
    base = read_table(base_path)
    if len(base) != len(rows):
        return [f"{file}: {len(rows)} rows, its base table {base_path.name} {len(base)}"]
    out = []
    for row_no, (row, ref) in enumerate(zip(rows, base, strict=True), start=1):
        fields = [f for f in diff_rows(ref, row) if f not in LEVEL_FIELDS]
        if fields and len(out) < max_report:
            out.append(f"{file}:{row_no}: differs from {base_path.name} in {', '.join(fields)}")
    return out


__all__ = ["check_private"]
