"""The run directories of a report: their records, checked, grouped into labelled rows.

Rows are labelled by policy; with several run directories, by ``<dir name>:<policy>``
(:func:`row_label`). :func:`load_runs` reads and checks every directory's records
(:func:`rsb_mj.reporting.validation.check_run`) before any table is computed, and
:func:`run_dirs_of` maps each row label back to its run directory (where its videos and
probe file are).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RECORDS_FILE, RunFolder
from rsb_mj.reporting.validation import check_run, refusal

__all__ = ["load_runs", "row_label", "run_dirs_of"]


def load_runs(dirs: Sequence[Path]) -> dict[str, list[EpisodeRecord]]:
    """Records per row label (policy, or ``dir:policy`` for several directories), checked
    by :func:`rsb_mj.reporting.validation.check_run`.

    Raises:
        EvalError: for a directory without records, or with records that are inconsistent
            (each named ``path:line``; see :mod:`rsb_mj.reporting.validation`).
    """
    runs: dict[str, list[EpisodeRecord]] = {}
    problems: list[str] = []
    for d in dirs:
        records, found = check_run(RunFolder(d))
        problems += found
        if not records:
            raise EvalError(f"{d}: no {RECORDS_FILE} records; run `rsb eval --out {d}` first")
        for rec in records:
            runs.setdefault(row_label(Path(d), rec.policy, len(dirs) > 1), []).append(rec)
    if problems:
        raise EvalError(refusal(problems))
    return runs


def row_label(run_dir: Path, policy: str, several: bool) -> str:
    """A row's label: the policy, or ``<dir name>:<policy>`` when several run directories
    are reported side by side."""
    return f"{run_dir.name}:{policy}" if several else policy


def run_dirs_of(dirs: Sequence[Path], runs: dict[str, list[EpisodeRecord]]) -> dict[str, Path]:
    """The run directory of each row label of ``runs`` (:func:`load_runs` of ``dirs``)."""
    out = {}
    for label, records in runs.items():
        policy = records[0].policy
        out[label] = next(
            Path(d) for d in dirs if row_label(Path(d), policy, len(dirs) > 1) == label
        )
    return out
