"""The report's hook for probe results: tables read from ``probe.json`` in a run directory.

``rsb probe`` (layerwise intent probing) writes its tables into the run directory it read;
``rsb report`` shows them, in Markdown and HTML alike, when the file is there. The file
holds only formatted tables, so the report shows exactly what the probe computed::

    {
      "format": "rsb-probe-tables/1",
      "tables": [
        {"title": "Probe accuracy per layer (target answer)",
         "note": "Out-of-fold accuracy, folds grouped by question; Wilson 95%.",
         "table": [["suite", "layer", "accuracy %", "chance %"],
                   ["RSB-Math-4", "encoder.3", "81.0 [72.1, 87.6]", "25.0"]]}
      ]
    }

``note`` may be left out; every cell is a string; every row has the header's length. A
table may also name ``records_sha256``, the sha256 of the run directory's records file it was
computed from (``rsb probe`` does): it is shown only while the records are unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.reporting.model import Section

__all__ = ["PROBE_FILE", "PROBE_FORMAT", "probe_sections", "read_probe_tables", "records_sha256"]

#: File name of the probe tables inside a run directory.
PROBE_FILE = "probe.json"
#: The ``format`` value this reader understands.
PROBE_FORMAT = "rsb-probe-tables/1"


def _table(value: Any, where: str) -> list[list[str]]:
    if not isinstance(value, list) or not value:
        raise EvalError(f"{where}: must be a non-empty list of rows (header first)")
    width = None
    for i, row in enumerate(value):
        if not isinstance(row, list) or not all(isinstance(c, str) for c in row):
            raise EvalError(f"{where}[{i}]: must be a list of strings")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise EvalError(f"{where}[{i}]: has {len(row)} cells; the header has {width}")
    return [list(row) for row in value]


def records_sha256(run_dir: Path) -> str:
    """sha256 of a run directory's records file (``""`` without one)."""
    return RunFolder(run_dir).records_sha256()


def read_probe_tables(path: Path) -> list[tuple[str, str, list[list[str]]]]:
    """(title, note, table) of each table of a probe file, leaving out those whose
    ``records_sha256`` is not that of the records beside the file (computed from other
    records).

    Raises:
        EvalError: for a file that is not JSON or not in :data:`PROBE_FORMAT`, naming the
            file and the field.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise EvalError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != PROBE_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise EvalError(f"{path}: field 'format' is {got!r}; it must be {PROBE_FORMAT!r}")
    tables = data.get("tables")
    if not isinstance(tables, list):
        raise EvalError(f"{path}: field 'tables' must be a list")
    out = []
    for i, entry in enumerate(tables):
        where = f"{path}: tables[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("title"), str):
            raise EvalError(f"{where}: must be an object with a string 'title'")
        note = entry.get("note", "")
        if not isinstance(note, str):
            raise EvalError(f"{where}.note: must be a string")
        digest = entry.get("records_sha256")
        if digest is not None and not isinstance(digest, str):
            raise EvalError(f"{where}.records_sha256: must be a string")
        if digest is not None and digest != records_sha256(path.parent):
            continue
        out.append((entry["title"], note, _table(entry.get("table"), f"{where}.table")))
    return out


def probe_sections(dirs: Sequence[Path]) -> list[Section]:
    """The probe tables of every run directory that has a :data:`PROBE_FILE`, as report
    sections (keys ``probe-0``, ``probe-1``, ...; titles name the directory when there are
    several)."""
    sections = []
    for d in dirs:
        path = Path(d) / PROBE_FILE
        if not path.is_file():
            continue
        for title, note, table in read_probe_tables(path):
            shown = f"Probe: {title}" + (f" ({Path(d).name})" if len(dirs) > 1 else "")
            sections.append(Section(f"probe-{len(sections)}", shown, note, table))
    return sections
