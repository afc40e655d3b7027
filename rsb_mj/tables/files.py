"""Frozen table files of every kind: where they live, their JSONL rows and the one manifest.

``tasks/episodes`` (:func:`episodes_dir`) holds one JSONL file per suite and split
(:func:`table_name`, e.g. ``RSB-Math-4.eval.jsonl``), one :meth:`Episode.to_dict` row per line
(:func:`dumps`, :func:`read_table`: a question suite's rows or a goal suite's, rows of the
one :class:`~rsb_mj.episodes.episode.Episode`), in one order (:func:`row_order`: by task
file, then row index), plus ``manifest.json`` (:data:`MANIFEST`) with each file's row count
and sha256 and what its kind adds (:func:`read_manifest`, :func:`write_manifest`). Every
kind of table is written by :func:`write_tables` (a :class:`FrozenTable` each: its rows
and manifest fields), checked against the manifest before use by :func:`verify_listed`
and against its entry by :func:`read_listed_table`; how the rows are drawn is the
family's (:mod:`rsb_mj.tables.freeze`). A suite's tables are drawn from its task file
(:func:`load_suite_problem`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError
from rsb_mj.lang import load_task
from rsb_mj.lang.ast import Problem
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import Suite

#: Name of the manifest file.
MANIFEST = "manifest.json"


def episodes_dir() -> Path:
    """The folder of the frozen tables (``tasks/episodes``)."""
    return tasks_dir() / "episodes"


def table_name(suite: str, split: str) -> str:
    """File name of a table, e.g. ``"RSB-Math-4.eval.jsonl"``."""
    return f"{suite}.{split}.jsonl"


def dumps(episodes: list[Episode], *, goal: bool = False) -> bytes:
    """The JSONL bytes of a table of either kind: one :meth:`Episode.dumps` row per line,
    UTF-8, each line ending in a newline (a question table of no rows is one newline, a goal
    table of none, with ``goal``, no bytes)."""
    if not episodes:
        return b"" if goal else b"\n"
    return "".join(e.dumps() + "\n" for e in episodes).encode("utf-8")


def read_table(path: Path, *, goal: bool = False) -> list[Episode]:
    """Read a JSONL table: a question suite's rows, or with ``goal`` a goal suite's
    (:meth:`Episode.from_dict`).

    Raises:
        EpisodeError: ``path:line`` of a row that is not valid JSON or not a row of its kind.
    """
    kind = "goal" if goal else "episode"
    if not path.is_file():
        raise EpisodeError(f"{kind} table {path} not found; build it with: rsb episodes build")
    what = "a goal row" if goal else "an episode row"
    out = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(Episode.from_dict(json.loads(line), goal=goal))
        except (json.JSONDecodeError, TypeError, ValueError) as exc:
            raise EpisodeError(f"{path}:{line_no}: not {what}: {exc}") from None
        except EpisodeError as exc:
            raise EpisodeError(f"{path}:{line_no}: {exc}") from None
    return out


def load_suite_problem(suite: Suite) -> Problem:
    """The parsed and linted task file of ``suite``: what its tables are drawn from
    (``rsb_mj.lang.load_task``)."""
    return load_task(suite.path)


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def read_manifest(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """File name -> ``{"suite", "split", "rows", "sha256"}`` ({} when there is none)."""
    path = (episodes_dir() if folder is None else folder) / MANIFEST
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["tables"])


def write_manifest(folder: Path, tables: dict[str, dict[str, Any]]) -> None:
    """Write ``manifest.json`` (sorted, stable bytes)."""
    body = {"format": 1, "tables": dict(sorted(tables.items()))}
    atomic_write_text(folder / MANIFEST, json.dumps(body, indent=2) + "\n")


def read_listed_table(
    folder: Path, name: str, entry: dict[str, Any], *, goal: bool = False
) -> tuple[list[str], list[Episode] | None]:
    """(problems, rows) of the table ``name`` of ``folder`` against its manifest ``entry``:
    a missing file (rows None), a sha256 or a row count that differs from the entry's
    (``goal``: a goal suite's rows).

    Raises:
        EpisodeError: ``path:line`` of a row that is not a row of its kind.
    """
    path = Path(folder) / name
    if not path.is_file():
        return [f"{name}: file missing"], None
    problems = []
    digest = sha256(path.read_bytes())
    if digest != entry["sha256"]:
        problems.append(
            f"{name}: sha256 {digest[:12]} differs from manifest {entry['sha256'][:12]}"
        )
    rows = read_table(path, goal=goal)
    if len(rows) != entry["rows"]:
        problems.append(f"{name}: {len(rows)} rows, manifest says {entry['rows']}")
    return problems, rows


def row_order(row: Episode) -> tuple[str, int]:
    """The order of every table's rows: by task file, then row index (a suite's rows share
    one task file, so a question table is in index order)."""
    return (row.task, row.index)


#: (path, size, mtime_ns) of every table this process verified.
_VERIFIED: set[tuple[str, int, int]] = set()


def verify_listed(
    folder: Path,
    name: str,
    *,
    build: str,
    goal: bool = False,
    drifted: Callable[[], list[str]] | None = None,
) -> Path:
    """Check the table file ``name`` of ``folder`` against the manifest before it is used:
    listed (a goal table as one), with the manifest's sha256 (hashed once per file and
    process). Returns its path.

    Args:
        build: the suite ``rsb episodes build`` names to rebuild it.
        goal: a goal suite's table (its rows are re-drawn by ``rsb episodes check``).
        drifted: for a changed table, the ``path:line: ...`` lines of the rows that differ
            (a question table's family rebuilds them; the first is named).

    Raises:
        EpisodeError: for a table missing from the folder or the manifest, or one whose
            bytes differ from the manifest's, naming how to restore it.
    """
    path = folder / name
    try:
        stat = path.stat()
    except OSError:
        raise EpisodeError(
            f"goal table {path} not found; freeze it with: rsb episodes build {build}"
            if goal
            else f"episode table {path} not found; build it with: rsb episodes build"
        ) from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key in _VERIFIED:
        return path
    entry = read_manifest(folder).get(name)
    if entry is not None and goal and entry.get("family") != "goal":
        entry = None
    if entry is None:
        raise EpisodeError(
            f"{path}: not a goal table of the manifest {folder / MANIFEST}; freeze it with: "
            f"rsb episodes build {build}"
            if goal
            else f"{path}: not in the manifest {folder / MANIFEST}; a table the manifest does "
            f"not list is not used; rebuild it with: rsb episodes build {build}"
        )
    digest = sha256(path.read_bytes())
    if digest != entry["sha256"]:
        differs = f"{path}: sha256 {digest[:12]} is not the manifest's {entry['sha256'][:12]}"
        if goal:
            raise EpisodeError(
                f"{differs}: the table was changed by hand; `rsb episodes check {build}` names "
                f"the rows; restore it (git checkout {path.name}) or refreeze it: rsb episodes "
                f"build {build}"
            )
        rows = drifted() if drifted is not None else []
        raise EpisodeError(
            "\n".join(
                [
                    *rows[:1],
                    f"{differs}: the table was changed by hand, so its rows would score the "
                    f"wrong episodes; restore it (e.g. git checkout {path.name}) or rebuild "
                    f"it: rsb episodes build {build}",
                ]
            )
        )
    _VERIFIED.add(key)
    return path


@dataclass(frozen=True)
class FrozenTable:
    """One table to write (:func:`write_tables`): what it is, its rows and what its
    manifest entry adds to ``suite``, ``split``, ``rows`` and ``sha256``.

    Attributes:
        suite, split: the table (its file :func:`table_name`).
        rows: its rows (written in :func:`row_order`).
        goal: a goal suite's rows (their JSON form; an empty table is no bytes).
        entry: the kind's manifest fields, in order (a goal table's seeds and short
            files, an Act2Answer table's dropped items).
        relaxed: rows built without their heuristic balance (a question table's).
        dropped: items the legibility check dropped (an Act2Answer table's), id -> reason.
        short: task files with too few rows (a goal table's), file -> why.
    """

    suite: str
    split: str
    rows: list[Episode]
    goal: bool = False
    entry: dict[str, Any] = field(default_factory=dict)
    relaxed: int = 0
    dropped: dict[str, str] = field(default_factory=dict)
    short: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildResult:
    """What a table build wrote for one table: its suite, split, path, rows, sha256, rows
    built without heuristic balance (``relaxed``), whether the bytes changed, the items a
    paired table's legibility check dropped (id -> reason) and a goal table's short files
    (task file -> why)."""

    suite: str
    split: str
    path: Path
    rows: int
    sha256: str
    relaxed: int
    changed: bool
    dropped: dict[str, str] = field(default_factory=dict)
    short: dict[str, str] = field(default_factory=dict)


def write_tables(out_dir: Path | None, tables: list[FrozenTable]) -> list[BuildResult]:
    """Write ``tables`` into ``out_dir`` (default ``tasks/episodes``), each file only when
    its bytes change (atomically), and their entries into its manifest: the one writer of
    every kind of table."""
    out_dir = episodes_dir() if out_dir is None else out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out_dir)
    results = []
    for table in tables:
        data = dumps(sorted(table.rows, key=row_order), goal=table.goal)
        path = out_dir / table_name(table.suite, table.split)
        changed = not path.is_file() or path.read_bytes() != data
        if changed:
            atomic_write_bytes(path, data)
        digest = sha256(data)
        manifest[path.name] = {
            "suite": table.suite,
            "split": table.split,
            "rows": len(table.rows),
            "sha256": digest,
            **table.entry,
        }
        results.append(
            BuildResult(
                table.suite,
                table.split,
                path,
                len(table.rows),
                digest,
                table.relaxed,
                changed,
                table.dropped,
                table.short,
            )
        )
    write_manifest(out_dir, manifest)
    return results


def diff_rows(stored: Episode, fresh: Episode) -> list[str]:
    """Names of the fields where two rows differ."""
    a, b = stored.to_dict(), fresh.to_dict()
    keys = [*a, *(k for k in b if k not in a)]
    return [k for k in keys if a.get(k) != b.get(k)]


__all__ = [
    "MANIFEST",
    "BuildResult",
    "FrozenTable",
    "diff_rows",
    "dumps",
    "episodes_dir",
    "load_suite_problem",
    "read_listed_table",
    "read_manifest",
    "read_table",
    "row_order",
    "sha256",
    "table_name",
    "verify_listed",
    "write_manifest",
    "write_tables",
]
