"""The probe's results as tables (Markdown, CSV), a JSON document and a per-layer plot.

Files ``rsb probe`` writes (``RUN/probe/`` for one run folder, else ``--out``), for target T:

* ``probe_T.md``: :func:`markdown_report` (the table and what each column means);
* ``probe_T.csv``: :func:`table` as CSV (one row per policy, suite and layer);
* ``probe_T.json``: :func:`results_json`, the machine-readable results (``{"format": 1,
  "target", "query", "variant", "settings", "runs", "records_sha256": {run: sha256 of its
  episodes.jsonl}, "sets": [{"label", "suite", "choices", "n", "layers", "left_out"}],
  "layers": [one :class:`~rsb_mj.probing.probe.LayerResult` per row of the table, rates as
  fractions]}``;
  :func:`read_results` reads it back);
* ``probe_T.png``: :func:`plot_layers`, accuracy by depth with its interval and the chance
  band, one line per (policy, suite);

and, for one run folder, the table of :func:`table` in ``RUN/probe.json``, the tables ``rsb
report`` shows in Markdown and HTML (:func:`rsb_mj.probing.run.save_report_table`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.tables import Table, markdown
from rsb_mj.probing.dataset import ProbeSet
from rsb_mj.probing.probe import LayerResult, ProbeSettings
from rsb_mj.reporting.probe_results import records_sha256

#: The results file of target ``T`` in a probe folder (``probe_answer.json``).
RESULTS_NAME = "probe_{target}.json"
#: Format version of the JSON document.
FORMAT = 1

HEADER = [
    "policy",
    "suite",
    "depth",
    "layer",
    "dim",
    "n (groups)",
    "accuracy %",
    "chance %",
    "chance band %",
    "verdict",
    "permuted % (p)",
    "knows-but-does-not-act %",
]

#: What each column means (printed under the table).
NOTE = (
    "accuracy: out-of-fold accuracy of an L2 logistic regression on the layer's standardized "
    "features (PCA when dim > training samples), folds grouped so that the two plate orders "
    "of an item, a row's variants and counterfactual twins never straddle train and test; "
    "Wilson 95% interval over the groups (related episodes are not independent: Act2Answer's "
    "conservative effective n). chance: 1/N, or the majority share when the labels are "
    "unbalanced; chance band: chance +- 1.96 sqrt(chance (1 - chance) / groups). verdict: "
    "above / below the band, else chance. permuted: mean accuracy of the same probe with the "
    "labels permuted between groups (p: share of permutations at least as accurate, with +1 "
    "smoothing). knows-but-does-not-"
    "act: among episodes whose out-of-fold prediction is right, the share whose choice was "
    "wrong or absent (of how many), Wilson 95%."
)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def table(results: Sequence[LayerResult]) -> Table:
    """One row per result (see :data:`HEADER`)."""
    rows = [list(HEADER)]
    for r in results:
        perm = "-"
        if r.permuted_mean is not None:
            perm = f"{_pct(r.permuted_mean)} (p {r.permutation_p:.3f})"
        if r.kbna is None or r.kbna_interval is None:
            kbna = "- (none right)"
        else:
            lo, hi = r.kbna_interval
            kbna = f"{_pct(r.kbna)} [{_pct(lo)}, {_pct(hi)}] of {r.known}"
        rows.append(
            [
                r.label,
                r.suite,
                str(r.depth),
                r.layer,
                str(r.dim),
                f"{r.n} ({r.groups})",
                f"{_pct(r.accuracy)} [{_pct(r.interval[0])}, {_pct(r.interval[1])}]",
                f"{_pct(r.chance)} ({r.chance_kind})",
                f"{_pct(r.band[0])}-{_pct(r.band[1])}",
                r.verdict,
                perm,
                kbna,
            ]
        )
    return rows


def results_json(
    results: Sequence[LayerResult],
    sets: Sequence[ProbeSet],
    *,
    target: str,
    query: str,
    variant: str,
    settings: ProbeSettings,
    runs: Sequence[Path],
) -> str:
    """The JSON document of a probe (see the module docstring)."""
    layers = []
    for r in results:
        row = asdict(r)
        del row["predictions"]
        layers.append(row)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "target": target,
        "query": query,
        "variant": variant,
        "settings": asdict(settings),
        "runs": [str(d) for d in runs],
        "records_sha256": {str(d): records_sha256(d) for d in runs},
        "sets": [
            {
                "label": s.label,
                "suite": s.suite,
                "choices": s.choices,
                "n": s.n,
                "layers": list(s.layers),
                "left_out": s.left_out,
            }
            for s in sets
        ],
        "layers": layers,
    }
    return json.dumps(doc, indent=2) + "\n"


def markdown_report(
    results: Sequence[LayerResult], target: str, left_out: Sequence[tuple[str, str, dict]]
) -> str:
    """The Markdown of a probe: a title, the table, the note and what was left out
    (``(label, suite, {why: count})`` per probe set)."""
    lines = [f"## Layerwise probe: target {target}", "", markdown(table(results)), "", NOTE]
    for label, suite, counts in left_out:
        if counts:
            out = ", ".join(f"{n} {why}" for why, n in counts.items())
            lines += ["", f"{label} on {suite}: left out {out}."]
    return "\n".join(lines) + "\n"


def read_results(path: Path) -> tuple[list[LayerResult], dict[str, Any]]:
    """The results of a saved probe (:func:`results_json`) and its document.

    Raises:
        EvalError: naming the file when it is not a probe results document of this format.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT:
            raise ValueError(f"format {doc.get('format')!r}, expected {FORMAT}")
        results = []
        for row in doc["layers"]:
            row = dict(row)
            for key in ("interval", "band", "kbna_interval"):
                if row.get(key) is not None:
                    row[key] = tuple(row[key])
            results.append(LayerResult(**row))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EvalError(f"{path}: not a probe results file ({exc})") from None
    return results, doc


def plot_layers(results: Sequence[LayerResult], path: Path, title: str) -> None:
    """Accuracy by depth (Wilson 95% error bars) with the chance band, one line per
    (policy, suite); written as PNG atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict[tuple[str, str], list[LayerResult]] = {}
    for r in results:
        lines.setdefault((r.label, r.suite), []).append(r)
    depth = max(len(v) for v in lines.values())
    fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * depth + 3), 4))
    for (label, suite), rs in lines.items():
        xs = [r.depth for r in rs]
        ys = [100 * r.accuracy for r in rs]
        err = [
            [100 * (r.accuracy - r.interval[0]) for r in rs],
            [100 * (r.interval[1] - r.accuracy) for r in rs],
        ]
        name = suite if len(lines) == len({s for _, s in lines}) else f"{label} on {suite}"
        line = ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=name)
        color = line[0].get_color()
        ax.fill_between(
            xs,
            [100 * r.band[0] for r in rs],
            [100 * r.band[1] for r in rs],
            color=color,
            alpha=0.15,
            linewidth=0,
        )
        ax.plot(xs, [100 * r.chance for r in rs], color=color, linestyle=":", linewidth=1)
    first = next(iter(lines.values()))
    ax.set_xticks([r.depth for r in first], [r.layer for r in first], rotation=30, ha="right")
    ax.set_xlabel("layer (depth order)")
    ax.set_ylabel("probe accuracy % (out of fold)")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, title="shaded: chance band", title_fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


__all__ = [
    "FORMAT",
    "HEADER",
    "NOTE",
    "RESULTS_NAME",
    "markdown_report",
    "plot_layers",
    "read_results",
    "results_json",
    "table",
]
