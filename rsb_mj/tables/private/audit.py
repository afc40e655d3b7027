"""The audit of a private folder (``rsb audit --tables DIR``, :mod:`rsb_mj.tables.private.build`):
each table's family audit, with the suite's shipped train table for the fitted probes, plus
the check that no row asks a question of a shipped table.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rsb_mj.tables.audit import Check
from rsb_mj.tables.families import audit_rows, load_table
from rsb_mj.tables.private.manifest import load_private, read_private, wanted_files
from rsb_mj.tables.private.target import target_of

if TYPE_CHECKING:
    from rsb_mj.tables.audit import AuditReport


def audit_private(
    folder: Path, names: list[str] | None = None, max_words: int | None = None
) -> list[AuditReport]:
    """The audit of each private table of ``folder`` (default: all): its family's audit
    (:func:`rsb_mj.tables.families.audit_rows`) with the suite's shipped train table for
    the fitted probes, plus the check that no row asks a question of a shipped table."""
    reports = []
    for file in wanted_files(read_private(folder), names):
        manifest, rows = load_private(folder, file)
        target = target_of(manifest.tables[file])
        train = load_table(target.suite.name, "train") if target.suite else None
        source = target.source
        report = audit_rows(rows, f"{target.label} private eval", max_words, train, source.base)
        asked = [r.index for r in rows if not source.holds(source.get(r.question_id))]
        report.checks.append(
            Check(
                "private (no question of a shipped table)",
                not asked,
                f"{len(asked)} of {len(rows)} rows ask a question a shipped table asks"
                + (f" (rows {asked[:10]})" if asked else ""),
                len(asked),
            )
        )
        reports.append(report)
    return reports


__all__ = ["audit_private"]
