"""The report's figures: PNG plots of the rates, the ablation drops and the confusions.

:func:`with_plots` adds them to a computed :class:`~rsb_mj.reporting.model.ReportData`
(``rates.png``, ``ablations.png`` when there are ablations, one ``confusion_<label>.png`` per
row label); without matplotlib it adds a note saying so instead. Every figure is drawn at
100 dpi with the Agg backend (the same records and matplotlib give the same PNG bytes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import io
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.evaluation.metrics import SuiteMetrics, confusion
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.reporting.model import Plot, ReportData

__all__ = [
    "CHANCE_LABEL",
    "plot_confusion",
    "plot_drops",
    "plot_rates",
    "rates_figure",
    "with_plots",
]


#: The longest label in a figure's file name [characters]: a longer one (a policy spec
#: that is a deep path) is cut and ends in a hash of the whole, within a file name's 255 bytes.
MAX_SLUG_CHARS = 64


def _slug(text: str) -> str:
    """``text`` as a file-name part: ``[A-Za-z0-9_.-]``, at most :data:`MAX_SLUG_CHARS`."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", text)
    if len(slug) <= MAX_SLUG_CHARS:
        return slug
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug[: MAX_SLUG_CHARS - 11]}_{digest}"


def _png(fig: Any) -> bytes:
    """The PNG bytes of a matplotlib figure (100 dpi); closes it."""
    # matplotlib: heavy to import (about 0.5 s), only when a figure is drawn
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def plot_rates(metrics: dict[str, list[SuiteMetrics]]) -> bytes:
    """PNG: grouped bars (suites x labels) of GSR, TSR and nSG with 95% intervals, and the
    chance TSR (1/N) of each suite (:func:`rates_figure`)."""
    return _png(rates_figure(metrics))


#: Legend label of the chance lines of the TSR panel.
CHANCE_LABEL = "chance (1/N)"


def rates_figure(metrics: dict[str, list[SuiteMetrics]]) -> Any:
    """The matplotlib figure of :func:`plot_rates`: three panels (GSR, TSR, nSG); the TSR
    panel has a dashed line across each suite's bars at its chance rate, 100/N % for N
    candidates (a language-blind policy that always places its grasp)."""
    # matplotlib: heavy to import (about 0.5 s), only when a figure is drawn
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    suites = list(dict.fromkeys(m.suite for ms in metrics.values() for m in ms))
    fig, axes = plt.subplots(3, 1, figsize=(max(6, 1.6 * len(suites)), 9), sharex=True)
    width = 0.8 / max(1, len(metrics))
    x = np.arange(len(suites))
    for ax, (title, getter) in zip(
        axes,
        (
            ("GSR %", lambda m: (m.gsr.value, m.gsr.interval)),
            ("TSR %", lambda m: (m.tsr.value, m.tsr.interval)),
            ("nSG %", lambda m: (m.nsg, m.nsg_interval)),
        ),
        strict=True,
    ):
        for i, (label, ms) in enumerate(metrics.items()):
            by_suite = {m.suite: m for m in ms}
            vals, lo, hi = [], [], []
            for s in suites:
                v, ci = getter(by_suite[s]) if s in by_suite else (None, None)
                v = np.nan if v is None else 100 * v
                vals.append(v)
                lo.append(0 if ci is None else v - 100 * ci[0])
                hi.append(0 if ci is None else 100 * ci[1] - v)
            ax.bar(x + (i - (len(metrics) - 1) / 2) * width, vals, width, label=label)
            ax.errorbar(
                x + (i - (len(metrics) - 1) / 2) * width,
                vals,
                yerr=[lo, hi],
                fmt="none",
                ecolor="black",
                capsize=3,
            )
        ax.set_ylabel(title)
        ax.axhline(0, color="gray", linewidth=0.8)
    choices = {m.suite: m.choices for ms in metrics.values() for m in ms}
    for i, suite in enumerate(suites):
        axes[1].hlines(
            100 / choices[suite], i - 0.45, i + 0.45, colors="tab:red", linestyles="dashed",
            linewidth=1.2, label=CHANCE_LABEL if i == 0 else None, zorder=3, gid="chance",
        )  # fmt: skip
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8, loc="upper right")
    axes[-1].set_xticks(x, suites, rotation=20, ha="right")
    fig.tight_layout()
    return fig


def plot_drops(table: list[list[str]]) -> bytes:
    """PNG: bars of the TSR drop (percentage points, 95% interval) per ablation, one group per
    policy and suite, from :func:`~rsb_mj.evaluation.tables.ablation_table` rows."""
    # matplotlib: heavy to import (about 0.5 s), only when a figure is drawn
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in table[1:] if r[6] != "withheld"]
    labels = [f"{r[0]}\n{r[1]}\n{r[2]}" for r in rows]
    values, lo, hi = [], [], []
    for r in rows:
        drop, rest = r[6].split(" [")
        a, b = rest.rstrip("]").split(", ")
        values.append(float(drop))
        lo.append(float(drop) - float(a))
        hi.append(float(b) - float(drop))
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 4))
    x = np.arange(len(rows))
    ax.bar(x, values, color="tab:orange")
    ax.errorbar(x, values, yerr=[lo, hi], fmt="none", ecolor="black", capsize=3)
    ax.axhline(0, color="gray", linewidth=0.8)
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("TSR drop (pp)")
    fig.tight_layout()
    return _png(fig)


def plot_confusion(records: Sequence[EpisodeRecord], title: str) -> bytes:
    """PNG: one heatmap per suite: correct option (rows) vs chosen option (columns + none)."""
    # matplotlib: heavy to import (about 0.5 s), only when a figure is drawn
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    suites = list(dict.fromkeys(r.suite for r in records))
    fig, axes = plt.subplots(1, len(suites), figsize=(3.6 * len(suites), 3.6), squeeze=False)
    for ax, suite in zip(axes[0], suites, strict=True):
        choices = next(r.choices for r in records if r.suite == suite)
        matrix = confusion([r for r in records if r.suite == suite], choices)
        ax.imshow(matrix, cmap="Blues")
        top = max(max(row) for row in matrix) or 1
        for r, row in enumerate(matrix):
            for c, count in enumerate(row):
                if count:
                    color = "white" if count > top / 2 else "black"
                    ax.text(c, r, str(count), ha="center", va="center", fontsize=7, color=color)
        cols = [*LETTERS[choices], "-"]
        ax.set_xticks(range(len(cols)), cols, fontsize=7)
        ax.set_yticks(range(choices), LETTERS[choices], fontsize=7)
        ax.set_xlabel("chosen")
        ax.set_ylabel("correct")
        ax.set_title(suite, fontsize=9)
    fig.suptitle(title)
    fig.tight_layout()
    return _png(fig)


def with_plots(data: ReportData) -> ReportData:
    """``data`` with its figures: the ablation drops (when there are ablations), the rates
    and one confusion heatmap per row label; without matplotlib, a note saying so instead."""
    if importlib.util.find_spec("matplotlib") is None:
        note = "Plots skipped: matplotlib is not installed (pip install 'rsb_mj[plots]')."
        return dataclasses.replace(data, notes=(*data.notes, note))
    figures = []
    ablations = next((s.table for s in data.sections if s.key == "ablations"), None)
    if ablations is not None:
        figures.append(Plot("ablations.png", "ablations", plot_drops(ablations)))
    if data.metrics:  # question tasks' rates (a report of goal tasks only has none)
        figures.append(Plot("rates.png", "rates", plot_rates(dict(data.metrics))))
    for label, recs in data.runs.items():
        name = f"confusion_{_slug(label)}.png"
        figures.append(Plot(name, f"confusion: {label}", plot_confusion(recs, label)))
    return dataclasses.replace(data, plots=(*data.plots, *figures))
