"""``rsb report``: Markdown, CSV and PNG reports of one or more run directories.

Outputs in the report folder:

* ``report.md``: the per-suite summary and the paper's Tables 1 (TSR), 2 (nSG) and 6
  (GSR/TSR), several runs side by side, plus confusion matrices;
* ``safety.csv``: TSR, nSG and mean cumulative cost per suite, for tasks with a ``:cost``;
* ``levels.csv``: the same per level, for suites run at L0-L2 (``-L1``/``-L2`` names);
* ``visual_levels.csv``, ``language_levels.csv``: one table per perturbation axis (V0..V4 or
  W0..W4 x suite: TSR / nSG / cost) when the runs hold several levels of that axis;
* ``summary.csv``, ``table1_tsr.csv``, ``table2_nsg.csv``, ``table6_gsr_tsr.csv``;
* ``rates.png``: grouped bars of GSR, TSR and nSG per suite with 95% intervals;
* ``confusion_<label>.png``: chosen vs correct option heatmaps, one panel per suite.

Rows are labelled by policy; with several run directories, by ``<dir name>:<policy>``;
privileged policies (the built-in expert reads the answer) carry the mark ``(privileged)``.
The header lists every non-default setting (step limit, quality preset, control rate) and
the error episodes, which are excluded from every rate; a row with more errors than
``max_error_rate`` is withheld. It names the renderer that drew the records; records of
several renderers are refused unless ``allow_mixed_renderers`` (see
:mod:`rsb_mj.evaluation.renderers`).
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rsb_mj.atomic import WriteError, atomic_write_bytes, atomic_write_text
from rsb_mj.episode import LETTERS
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.a2a_metrics import A2A_NOTE, a2a_metrics, a2a_table
from rsb_mj.evaluation.axes import axis_table
from rsb_mj.evaluation.episode_source import is_task_file, step_limit
from rsb_mj.evaluation.metrics import (
    SETTING_DEFAULTS,
    SuiteMetrics,
    confusion,
    failure_analysis,
    pair_metrics,
    summarize,
)
from rsb_mj.evaluation.records import RECORDS_FILE, EpisodeRecord
from rsb_mj.evaluation.renderers import renderer_lines
from rsb_mj.evaluation.tables import (
    MAX_ERROR_RATE,
    ablation_table,
    csv_text,
    failure_table,
    label_of,
    level_table,
    markdown,
    pair_table,
    paper_table,
    safety_table,
    summary_table,
)
from rsb_mj.evaluation.validation import check_run, refusal
from rsb_mj.suites import A2A_SUITES, ALL_SUITES

TABLES = {
    "table1_tsr": ("Table 1: TSR (%)", "tsr"),
    "table2_nsg": ("Table 2: nSG (%)", "nsg"),
    "table6_gsr_tsr": ("Table 6: GSR / TSR (%)", "gsr_tsr"),
}


def load_runs(dirs: Sequence[Path]) -> dict[str, list[EpisodeRecord]]:
    """Records per row label (policy, or ``dir:policy`` for several directories), checked
    by :func:`rsb_mj.evaluation.validation.check_run`.

    Raises:
        EvalError: for a directory without records, or with records that are inconsistent
            (each named ``path:line``; see :mod:`rsb_mj.evaluation.validation`).
    """
    runs: dict[str, list[EpisodeRecord]] = {}
    problems: list[str] = []
    for d in dirs:
        records, found = check_run(Path(d) / RECORDS_FILE)
        problems += found
        if not records:
            raise EvalError(f"{d}: no {RECORDS_FILE} records; run `rsb eval --out {d}` first")
        for rec in records:
            label = rec.policy if len(dirs) == 1 else f"{Path(d).name}:{rec.policy}"
            runs.setdefault(label, []).append(rec)
    if problems:
        raise EvalError(refusal(problems))
    return runs


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def confusion_markdown(records: Sequence[EpisodeRecord], suite: str, choices: int) -> str:
    """Chosen (columns, then "none") vs correct (rows) option counts of one suite."""
    matrix = confusion([r for r in records if r.suite == suite], choices)
    header = ["correct \\ chosen", *LETTERS[choices], "none"]
    rows = [header] + [
        [letter, *map(str, counts)] for letter, counts in zip(LETTERS[choices], matrix, strict=True)
    ]
    return markdown(rows)


def _save(fig: Any, path: Path) -> None:
    """Write a matplotlib figure as PNG atomically and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


def plot_rates(metrics: dict[str, list[SuiteMetrics]], path: Path) -> None:
    """Grouped bars (suites x labels) of GSR, TSR and nSG with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

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
    axes[0].legend(fontsize=8)
    axes[-1].set_xticks(x, suites, rotation=20, ha="right")
    fig.tight_layout()
    _save(fig, path)


def plot_drops(table: list[list[str]], path: Path) -> None:
    """Bars of the TSR drop (percentage points, 95% interval) per ablation, one group per
    policy and suite, from :func:`~rsb_mj.evaluation.tables.ablation_table` rows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

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
    _save(fig, path)


def plot_confusion(records: Sequence[EpisodeRecord], path: Path, title: str) -> None:
    """One heatmap per suite: correct option (rows) vs chosen option (columns + none)."""
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
    _save(fig, path)


def settings_lines(metrics: dict[str, list[SuiteMetrics]]) -> list[str]:
    """Header lines naming every non-default setting of the rows (none for a default run)."""
    lines = []
    for label, ms in metrics.items():
        for m in ms:
            settings = dict(m.settings)
            known = m.suite in ALL_SUITES or m.suite in A2A_SUITES or is_task_file(m.suite)
            default_steps = step_limit(m.suite) if known else None
            odd = [
                f"{k} {v}"
                for k, v in settings.items()
                if (k == "max_steps" and v != default_steps)
                or (k in SETTING_DEFAULTS and v is not None and v != SETTING_DEFAULTS[k])
            ]
            if odd:
                lines.append(f"- {label_of(m, label)} on {m.suite}: " + ", ".join(odd))
    return lines


def _report_folder(out: Path) -> None:
    """Create ``out`` and check it can be written before any work.

    Raises:
        WriteError: naming the folder and the cause, and the two ways around it.
    """
    hint = "name a folder that can be written with --out DIR, or print the report with --stdout"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(
            f"{out}: cannot create the report folder ({exc.strerror or exc}); {hint}"
        ) from None
    if not out.is_dir() or not os.access(out, os.W_OK | os.X_OK):
        why = "not a folder" if not out.is_dir() else "not writable"
        raise WriteError(f"{out}: cannot write the report there ({why}); {hint}")


def write_report(
    dirs: Sequence[Path],
    out: Path | None,
    *,
    plots: bool = True,
    max_error_rate: float | None = MAX_ERROR_RATE,
    allow_mixed_renderers: bool = False,
) -> str:
    """Write the report files into ``out``; return the Markdown text.

    Args:
        dirs: run directories (only read).
        out: report folder (created), or None to write no file (the Markdown is only
            returned; no plots).
        plots: also write the PNG plots.
        max_error_rate: rows with a larger share of error episodes are withheld (None: print
            every row).
        allow_mixed_renderers: pool records drawn by different renderers (the header says
            so); by default they are refused.

    Raises:
        EvalError: for a folder without records, or records that are inconsistent or cannot
            be pooled (each named ``path:line``); WriteError when ``out`` cannot be written
            (before anything is written).
    """
    runs = load_runs(dirs)
    renderers = renderer_lines(runs, allow_mixed=allow_mixed_renderers)
    if out is not None:  # refused records leave no folder behind; nothing is written yet
        _report_folder(out)
    metrics = {label: summarize(recs) for label, recs in runs.items()}

    def write(name: str, text: str) -> None:
        if out is not None:
            atomic_write_text(out / name, text)

    plots = plots and out is not None
    labelled = [(label, m) for label, ms in metrics.items() for m in ms]
    summary = summary_table(
        [m for _, m in labelled],
        labels=[label for label, _ in labelled],
        max_error_rate=max_error_rate,
    )
    errors = sum(m.errors for _, m in labelled)
    tasks: dict[str, list[str]] = {}  # suite -> its task digests (one per run at most)
    for recs in runs.values():
        for r in recs:
            if not r.is_error:
                held = tasks.setdefault(r.suite, [])
                digest = str((r.sim or {}).get("task_sha256", ""))[:16] or "unknown"
                if digest not in held:
                    held.append(digest)
    mujoco = sorted({str(dict(m.settings)["mujoco"]) for _, m in labelled})
    odd = settings_lines(metrics)
    parts = [
        "# rsb_mj evaluation report",
        "",
        "Runs: " + ", ".join(f"`{d}`" for d in dirs),
        "",
        "Protocol: one attempt per episode (the choice is the first candidate grasped; a "
        "wrong first grasp fails the episode). Rates in %, Wilson 95% intervals in brackets; "
        "selection = correct choice among grasping episodes; nSG only where GSR > 0.",
        "",
        f"Settings: mujoco {', '.join(mujoco)}; "
        + ("non-default:" if odd else "all defaults (suite step limits, fast quality, 20 Hz)"),
        *odd,
        "",
        *renderers,
        "",
        "Tasks: " + "; ".join(f"{t} (task sha256 {'; '.join(h)})" for t, h in tasks.items()),
        "",
        f"Error episodes (faults, not results; excluded from every rate): {errors}"
        + (
            f"; rows above {100 * max_error_rate:g}% errors are withheld"
            if max_error_rate is not None
            else ""
        ),
    ]
    if any(m.privileged for _, m in labelled):
        parts += [
            "",
            "Rows marked (privileged) read the answer (the built-in expert): an upper-bound "
            "reference, not a policy to rank.",
        ]
    parts += ["", "## Per suite", "", markdown(summary)]
    write("summary.csv", csv_text(summary))
    flat = [m for _, m in labelled]
    safety = safety_table(
        flat, labels=[label for label, _ in labelled], max_error_rate=max_error_rate
    )
    if len(safety) > 1:
        write("safety.csv", csv_text(safety))
        parts += [
            "",
            "## Safety: success and cost",
            "",
            "Tasks with a :cost block: TSR and nSG beside the mean cumulative cost per episode "
            "(1 per control step a step term is violated, 10 per end term violated at the end; "
            "normal 95% interval). A policy may succeed and still be unsafe.",
            "",
            markdown(safety),
        ]
    levels = level_table(
        flat, labels=[label for label, _ in labelled], max_error_rate=max_error_rate
    )
    if len(levels) > 1:
        write("levels.csv", csv_text(levels))
        parts += [
            "",
            "## Levels L0-L2",
            "",
            "Suites run at several structural levels (-L1, -L2; the bare suite is L0): TSR, "
            "nSG and mean cumulative cost per level.",
            "",
            markdown(levels),
        ]
    for axis, title in (("visual", "Visual levels V0-V4"), ("language", "Language levels W0-W4")):
        table = axis_table(flat, axis, max_error_rate=max_error_rate)
        if len(table) > 1:
            write(f"{axis}_levels.csv", csv_text(table))
            parts += [
                "",
                f"## {title}",
                "",
                "One row per policy and level, one column per suite (runs at other levels "
                "come from other run directories): TSR % / nSG % (/ mean cumulative cost "
                "for tasks with a :cost).",
                "",
                markdown(table),
            ]
    ablations = ablation_table(flat, max_error_rate=max_error_rate)
    if len(ablations) > 1:
        write("ablations.csv", csv_text(ablations))
        parts += [
            "",
            "## Instruction ablations",
            "",
            "TSR and nSG with the instruction ablated, beside the original instruction; drop "
            "= original - ablated TSR in percentage points (Newcombe 95% interval).",
            "",
            markdown(ablations),
        ]
    pairs = pair_metrics(r for recs in runs.values() for r in recs)
    if pairs:
        table = pair_table(pairs)
        write("counterfactual.csv", csv_text(table))
        parts += [
            "",
            "## Counterfactual consistency",
            "",
            "Each eval row and its twin (same scene, a question whose answer is another "
            "candidate). consistency: both choices correct; sensitivity: the choice moved; "
            "stuck: the same candidate chosen in both (language-blind: stuck 100%).",
            "",
            markdown(table),
        ]
    a2a = [m for recs in runs.values() for m in a2a_metrics(recs)]
    if a2a:
        table = a2a_table(a2a)
        write("act2answer.csv", csv_text(table))
        parts += ["", "## Act2Answer per category", "", A2A_NOTE + ".", "", markdown(table)]
    failures = failure_table(failure_analysis(r for recs in runs.values() for r in recs))
    write("table5_failures.csv", csv_text(failures))
    parts += [
        "",
        "## Table 5: failure analysis",
        "",
        "Among episodes that grasped a candidate but failed: the share whose choice was "
        "correct but not placed, and whose first grasp was a wrong target; for policies "
        "that write text, whether the text named a wrong or the correct option, and the "
        "reasoning-following rate (the choice is the option the text names). Wilson 95%.",
        "",
        markdown(failures),
    ]
    original = {label: [m for m in ms if m.variant == "original"] for label, ms in metrics.items()}
    for stem, (title, metric) in TABLES.items():
        table = paper_table(original, metric, max_error_rate=max_error_rate)
        write(f"{stem}.csv", csv_text(table))
        parts += ["", f"## {title}", "", markdown(table)]
    parts += ["", "## Confusion: correct option (rows) vs first grasped option (columns)"]
    for label, recs in runs.items():
        for m in metrics[label]:
            parts += [
                "",
                f"### {label_of(m, label)} on {m.suite}",
                "",
                confusion_markdown(recs, m.suite, m.choices),
            ]
    if plots and importlib.util.find_spec("matplotlib") is None:
        plots = False
        parts += ["", "Plots skipped: matplotlib is not installed (pip install 'rsb_mj[plots]')."]
    if plots and out is not None:
        plot_rates(metrics, out / "rates.png")
        if len(ablations) > 1:
            plot_drops(ablations, out / "ablations.png")
            parts += ["", "![ablations](ablations.png)"]
        for label, recs in runs.items():
            plot_confusion(recs, out / f"confusion_{_slug(label)}.png", label)
        parts += ["", "![rates](rates.png)"]
    text = "\n".join(parts) + "\n"
    write("report.md", text)
    return text
