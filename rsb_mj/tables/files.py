"""Frozen table files: where they live, their JSONL rows and the one manifest.

``tasks/episodes`` (:func:`episodes_dir`) holds one JSONL file per suite and split
(:func:`table_name`, e.g. ``RSB-Math-4.eval.jsonl``), one :meth:`Episode.to_dict` row per line
(:func:`dumps`, :func:`read_table`: a question suite's rows or a goal suite's, rows of the
one :class:`~rsb_mj.episodes.episode.Episode`), plus ``manifest.json`` (:data:`MANIFEST`) with each
file's row count and sha256 (:func:`read_manifest`, :func:`write_manifest`,
:func:`read_listed_table`). Every table family (:mod:`rsb_mj.tables.families`) writes and
reads its tables through this module; how the rows are drawn is the family's. A suite's
tables are drawn from its task file (:func:`load_suite_problem`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rsb_mj.atomic import atomic_write_text
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
    folder: Path, name: str, entry: dict[str, Any]
) -> tuple[list[str], list[Episode] | None]:
    """(problems, rows) of the table ``name`` of ``folder`` against its manifest ``entry``:
    a missing file (rows None), a sha256 or a row count that differs from the entry's."""
    path = Path(folder) / name
    if not path.is_file():
        return [f"{name}: file missing"], None
    problems = []
    digest = sha256(path.read_bytes())
    if digest != entry["sha256"]:
        problems.append(
            f"{name}: sha256 {digest[:12]} differs from manifest {entry['sha256'][:12]}"
        )
    rows = read_table(path)
    if len(rows) != entry["rows"]:
        problems.append(f"{name}: {len(rows)} rows, manifest says {entry['rows']}")
    return problems, rows


def diff_rows(stored: Episode, fresh: Episode) -> list[str]:
    """Names of the fields where two rows differ."""
    a, b = stored.to_dict(), fresh.to_dict()
    keys = [*a, *(k for k in b if k not in a)]
    return [k for k in keys if a.get(k) != b.get(k)]


__all__ = [
    "MANIFEST",
    "diff_rows",
    "dumps",
    "episodes_dir",
    "load_suite_problem",
    "read_listed_table",
    "read_manifest",
    "read_table",
    "sha256",
    "table_name",
    "write_manifest",
]
