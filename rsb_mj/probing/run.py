"""``rsb probe`` end to end: load the run folders' features, probe every layer, write the files.

:func:`probe_runs` is what the command line calls, :func:`report_sections` what ``rsb report``
adds; see
:mod:`rsb_mj.probing.tables` for the files and :mod:`rsb_mj.probing.probe` for the method.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.atomic import WriteError, atomic_write_text
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.evaluation.tables import csv_text
from rsb_mj.probing.dataset import ProbeSet, load_probe_sets
from rsb_mj.probing.probe import LayerResult, ProbeSettings, probe_set
from rsb_mj.probing.tables import NOTE, RESULTS_NAME, markdown_report, plot_layers, results_json
from rsb_mj.probing.tables import table as result_table
from rsb_mj.reporting.model import Section
from rsb_mj.reporting.probe_results import (
    PROBE_FILE,
    PROBE_FORMAT,
    read_probe_tables,
    records_sha256,
)

#: The probe folder of a run directory (``rsb probe RUN`` writes there).
PROBE_DIR = "probe"


@dataclass(frozen=True)
class ProbeRun:
    """What a probe found and wrote.

    Attributes:
        sets: the probe sets (one per policy and suite).
        results: one per set and layer, sets in order, layers in depth order.
        markdown: the Markdown report.
        files: the files written (empty when nothing was written).
    """

    sets: tuple[ProbeSet, ...]
    results: tuple[LayerResult, ...]
    markdown: str
    files: tuple[Path, ...]


def _folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{out}: cannot create the probe folder ({exc.strerror or exc})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise WriteError(f"{out}: cannot write the probe results there (not writable)")


def probe_runs(
    dirs: Sequence[Path],
    out: Path | None,
    *,
    target: str = "answer",
    variant: str = "original",
    query: str = "first",
    settings: ProbeSettings | None = None,
    plot: bool = True,
) -> ProbeRun:
    """Probe the features of ``dirs`` and write ``probe_<target>.{md,csv,json,png}`` to
    ``out`` (None: write nothing); for one run folder, also its table into the folder's
    ``probe.json``, where ``rsb report`` finds it (:func:`save_report_table`).

    Raises:
        EvalError: see :func:`~rsb_mj.probing.dataset.load_probe_sets`; WriteError when
            ``out`` cannot be written (checked before the probes run).
    """
    if importlib.util.find_spec("sklearn") is None:
        raise EvalError("rsb probe needs scikit-learn: pip install 'rsb_mj[probe]'")
    settings = settings or ProbeSettings()
    sets = load_probe_sets(dirs, target, variant=variant, query=query)
    if out is not None:
        _folder(out)
    results = [r for s in sets for r in probe_set(s, settings)]
    text = markdown_report(results, target, [(s.label, s.suite, s.left_out) for s in sets])
    files: list[Path] = []
    if out is not None:
        stem = RESULTS_NAME.format(target=target).removesuffix(".json")
        outputs = {
            f"{stem}.md": text,
            f"{stem}.csv": csv_text(result_table(results)),
            f"{stem}.json": results_json(
                results, sets, target=target, query=query, variant=variant,
                settings=settings, runs=dirs,
            ),
        }  # fmt: skip
        for name, content in outputs.items():
            atomic_write_text(out / name, content)
            files.append(out / name)
        if plot and importlib.util.find_spec("matplotlib") is not None:
            plot_layers(results, out / f"{stem}.png", f"layerwise probe, target {target}")
            files.append(out / f"{stem}.png")
        if len(dirs) == 1:
            title = probe_title(target, variant, query)
            files.append(save_report_table(Path(dirs[0]), title, results))
    return ProbeRun(tuple(sets), tuple(results), text, tuple(files))


def has_features(run_dir: Path) -> bool:
    """True when a scored record of ``run_dir`` names a features archive."""
    records = RunFolder(run_dir).records()
    return any(not r.is_error and r.features and r.features.get("file") for r in records)


def probe_title(target: str, variant: str = "original", query: str = "first") -> str:
    """The title of a probe's table in the run folder's ``probe.json`` and the report."""
    more = [f"variant {variant}"] * (variant != "original") + [f"query {query}"] * (
        query != "first"
    )
    return f"layerwise probe, target {target}" + (f" ({', '.join(more)})" if more else "")


def save_report_table(run_dir: Path, title: str, results: Sequence[LayerResult]) -> Path:
    """Put the table of ``results`` into ``run_dir``'s ``probe.json``, the tables ``rsb
    report`` shows (:mod:`rsb_mj.reporting.probe_results`), under ``title`` (replacing the
    table of that title; tables computed from older records are dropped), with the sha256 of
    the records it was computed from. Written atomically.

    Raises:
        EvalError: for a ``probe.json`` that is not a probe tables file.
    """
    path = Path(run_dir) / PROBE_FILE
    digest = records_sha256(run_dir)
    kept = []
    if path.exists():
        read_probe_tables(path)  # a malformed file is named, not overwritten
        doc = json.loads(path.read_text(encoding="utf-8"))
        kept = [
            t
            for t in doc["tables"]
            if t["title"] != title and t.get("records_sha256", digest) == digest
        ]
    note = f"{NOTE} Computed by rsb probe from these records ({PROBE_DIR}/ holds its files)."
    entry = {"title": title, "note": note, "table": result_table(results), "records_sha256": digest}
    text = json.dumps({"format": PROBE_FORMAT, "tables": [*kept, entry]}, indent=2) + "\n"
    atomic_write_text(path, text)
    return path


def report_sections(dirs: Sequence[Path]) -> list[Section]:
    """What ``rsb report`` adds for the run folders with features whose ``probe.json`` has no
    current answer probe (rsb probe never ran on them, or their records changed since): the
    probe of the answer computed afresh with default settings (nothing written), or a section
    saying why there is none. ``[]`` when every folder with features has its saved probe."""
    title = probe_title("answer")
    todo = []
    for d in dirs:
        path = Path(d) / PROBE_FILE
        saved = path.is_file() and any(t == title for t, _, _ in read_probe_tables(path))
        if not saved and has_features(d):
            todo.append(Path(d))
    if not todo:
        return []
    if importlib.util.find_spec("sklearn") is None:
        why = [["run", "probe"], *([str(d), "skipped: pip install 'rsb_mj[probe]'"] for d in todo)]
        return [Section("probe-fresh", f"Probe: {title}", "scikit-learn is missing.", why)]
    done = probe_runs(todo, None)
    note = f"{NOTE} Computed for this report (rsb probe RUN_DIR saves it in the run folder)."
    return [Section("probe-fresh", f"Probe: {title}", note, result_table(done.results))]


__all__ = [
    "PROBE_DIR",
    "ProbeRun",
    "has_features",
    "probe_runs",
    "probe_title",
    "report_sections",
    "save_report_table",
]
