"""``rsb probe`` end to end: load the run folders' features, probe every layer, write the files.

:func:`probe_runs` is what the command line and ``rsb report`` call; see
:mod:`rsb_mj.probing.tables` for the files and :mod:`rsb_mj.probing.probe` for the method.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.atomic import WriteError, atomic_write_text
from rsb_mj.probing.dataset import ProbeSet, load_probe_sets
from rsb_mj.probing.probe import LayerResult, ProbeSettings, probe_set
from rsb_mj.probing.tables import RESULTS_NAME, csv_text, markdown_report, plot_layers, results_json
from rsb_mj.probing.tables import table as result_table

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
    ``out`` (None: write nothing).

    Raises:
        EvalError: see :func:`~rsb_mj.probing.dataset.load_probe_sets`; WriteError when
            ``out`` cannot be written (checked before the probes run).
    """
    settings = settings or ProbeSettings()
    sets = load_probe_sets(dirs, target, variant=variant, query=query)
    if out is not None:
        _folder(out)
    results = [r for s in sets for r in probe_set(s, settings)]
    text = markdown_report(results, target, sets)
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
    return ProbeRun(tuple(sets), tuple(results), text, tuple(files))


__all__ = ["PROBE_DIR", "ProbeRun", "probe_runs"]
