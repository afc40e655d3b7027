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
* ``confusion_<label>.png``: chosen vs correct option heatmaps, one panel per suite;
* ``semantic_gap.csv``: for runs with ``--instruction direct``, TSR with the answer stated
  beside the original and the semantic gap between them (a control, never a score);
* ``report.html`` (``html=True``, ``rsb report --html``): one self-contained page of the same
  tables, the plots and an episode browser (:mod:`rsb_mj.reporting.html`).

The tables are computed once (:func:`build_report` returns a
:class:`~rsb_mj.reporting.model.ReportData`) and rendered by
:func:`~rsb_mj.reporting.markdown.markdown_text` and the HTML page alike, so the two
show the same strings; :func:`write_report` writes the files. A run directory's
``probe.json`` adds its tables to both (:mod:`rsb_mj.reporting.probe_results`; ``rsb probe
RUN`` writes it); a run made with ``rsb eval --features`` whose ``probe.json`` holds no probe
of the answer computed from its current records gets one computed afresh with default
settings (:func:`rsb_mj.probing.run.report_sections`).

The parts live beside this module, one each: the run directories and row labels
(:mod:`.runs`), the header lines (:mod:`.header`), which tables appear (:mod:`.sections`;
:mod:`rsb_mj.evaluation.tables` formats their cells), the plots (:mod:`.plots`) and the
Markdown renderer (:mod:`.markdown`).

Rows are labelled by policy; with several run directories, by ``<dir name>:<policy>``;
privileged policies (the built-in expert reads the answer) carry the mark ``(privileged)``.
The header lists every non-default setting (step limit, quality preset, control rate) and
the error episodes, which are excluded from every rate; a row with more errors than
``max_error_rate`` is withheld. It names the renderer that drew the records; records of
several renderers are refused unless ``allow_mixed_renderers`` (see
:mod:`rsb_mj.reporting.renderers`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rsb_mj.atomic import WriteError, atomic_write_bytes
from rsb_mj.evaluation.metrics import LABEL_NOTE, goal_tables, summarize
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.tables import MAX_ERROR_RATE, csv_text
from rsb_mj.probing.run import report_sections
from rsb_mj.reporting.header import header_lines
from rsb_mj.reporting.html import render_page
from rsb_mj.reporting.markdown import markdown_text
from rsb_mj.reporting.model import ReportData, Section
from rsb_mj.reporting.plots import with_plots
from rsb_mj.reporting.probe_results import probe_sections
from rsb_mj.reporting.renderers import renderer_lines
from rsb_mj.reporting.runs import load_runs, run_dirs_of
from rsb_mj.reporting.sections import confusions, table_sections

__all__ = ["HTML_FILE", "build_report", "write_report"]

#: File name of the HTML page in the report folder.
HTML_FILE = "report.html"


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


def build_report(
    dirs: Sequence[Path],
    *,
    plots: bool = True,
    max_error_rate: float | None = MAX_ERROR_RATE,
    allow_mixed_renderers: bool = False,
) -> ReportData:
    """Compute everything a report shows (see :func:`write_report`); writes nothing.

    Args:
        dirs: run directories (only read).
        plots: also draw the PNG figures (:func:`~rsb_mj.reporting.plots.with_plots`).
        max_error_rate: rows with a larger share of error episodes are withheld (None: print
            every row).
        allow_mixed_renderers: pool records drawn by different renderers.

    Raises:
        EvalError: for a folder without records, records that are inconsistent or cannot be
            pooled, or a malformed probe file.
    """
    dirs = tuple(Path(d) for d in dirs)
    every = load_runs(dirs)
    renderers = renderer_lines(every, allow_mixed=allow_mixed_renderers)
    runs = {k: q for k, rs in every.items() if (q := [r for r in rs if not r.is_goal])}
    goal_runs = {k: g for k, rs in every.items() if (g := [r for r in rs if r.is_goal])}
    goals = [replace(r, policy=k) for k, rs in goal_runs.items() for r in rs]
    metrics = {label: summarize(recs) for label, recs in runs.items()}
    if runs:
        header = header_lines(dirs, runs, metrics, renderers, max_error_rate)
        sections = table_sections(runs, metrics, max_error_rate)
    else:
        header, sections = goal_header_lines(dirs, goals, renderers, max_error_rate), []
    if goals:
        sections += goal_sections(goals, max_error_rate)
    sections += probe_sections(dirs)
    sections += report_sections(dirs)
    data = ReportData(
        dirs=dirs,
        header=tuple(header),
        sections=tuple(sections),
        confusions=confusions(runs, metrics),
        plots=(),
        notes=(),
        runs=runs,
        metrics=metrics,
        run_dirs=run_dirs_of(dirs, every),
        goals=goal_runs,
    )
    return with_plots(data) if plots else data


def goal_header_lines(
    dirs: Sequence[Path],
    goals: list[EpisodeRecord],
    renderers: list[str],
    max_error_rate: float | None,
) -> list[str]:
    """The header of a report of goal tasks only: the runs, the protocol, the objects they
    ran on, the renderers, the error episodes and the label."""
    errors = sum(r.is_error for r in goals)
    objects = sorted({r.objects for r in goals if r.objects is not None})
    return [
        "Runs: " + ", ".join(f"`{d}`" for d in dirs),
        "",
        "Protocol: goal tasks (LIBERO / VLA-Arena style files): an episode is a row of a goal "
        "suite's frozen table (a seed and its layout), or a seed of a task file given by path; "
        "success is the :goal holding for 10 consecutive control steps; the step limit ends a "
        "failed episode. Rates in %, Wilson 95% intervals in brackets; cost = mean cumulative "
        ":cost per episode where a file has one.",
        "",
        f"Objects: {', '.join(objects)}",
        "",
        *renderers,
        "",
        f"Error episodes (faults, not results; excluded from every rate): {errors}"
        + (
            f"; rows above {100 * max_error_rate:g}% errors are withheld"
            if max_error_rate is not None
            else ""
        ),
        "",
        LABEL_NOTE,
    ]


def goal_sections(goals: list[EpisodeRecord], max_error_rate: float | None) -> list[Section]:
    """The goal tasks' tables: success per task file, per suite (the table's owner,
    ``libero``, ``vla-arena``, or ``files``) and, for shipped files, per LIBERO /
    VLA-Arena suite (``libero-goal``, ``long-horizon``: the suites papers report; CSV
    ``goal_tasks``, ``goal_suites``, ``goal_source_suites``;
    :func:`rsb_mj.evaluation.metrics.goal_tables`)."""
    tasks, suites, sources = goal_tables(goals, max_error_rate)
    sections = [
        Section("goal_tasks", "Goal tasks: success per task", LABEL_NOTE, tasks, "goal_tasks"),
        Section("goal_suites", "Goal tasks: success per suite", "", suites, "goal_suites"),
    ]
    if len(sources) > 1:  # some record is of a shipped LIBERO / VLA-Arena file
        title = "Goal tasks: success per LIBERO / VLA-Arena suite"
        note = (
            "LIBERO's five suites and VLA-Arena's eleven, by the names `rsb eval --suite` "
            "takes; tiers A0/A1 table-top pick and place, B1/B2 articulated fixtures, C "
            "floor scenes on the table."
        )
        sections.append(Section("goal_source_suites", title, note, sources, "goal_source_suites"))
    return sections


def write_report(
    dirs: Sequence[Path],
    out: Path | None,
    *,
    plots: bool = True,
    max_error_rate: float | None = MAX_ERROR_RATE,
    allow_mixed_renderers: bool = False,
    html: bool = False,
) -> str:
    """Write the report files into ``out``; return the Markdown text.

    The records are checked and every table computed before the folder is made; each file
    is written atomically, ``report.md`` (and ``report.html``) last.

    Args:
        dirs: run directories (only read).
        out: report folder (created), or None to write no file (the Markdown is only
            returned; no plots, no page).
        plots: also write the PNG plots.
        max_error_rate: rows with a larger share of error episodes are withheld (None: print
            every row).
        allow_mixed_renderers: pool records drawn by different renderers (the header says
            so); by default they are refused.
        html: also write ``report.html``: one self-contained page of the same tables, the
            plots and an episode browser (:mod:`rsb_mj.reporting.html`).

    Raises:
        EvalError: for a folder without records, or records that are inconsistent or cannot
            be pooled (each named ``path:line``); WriteError when ``out`` cannot be written
            (before anything is written).
    """
    data = build_report(
        dirs,
        plots=False,
        max_error_rate=max_error_rate,
        allow_mixed_renderers=allow_mixed_renderers,
    )
    if out is None:
        return printable(markdown_text(data))
    _report_folder(out)  # refused records leave no folder behind; nothing is written yet
    if plots:
        data = with_plots(data)
    text = printable(markdown_text(data))
    files = [
        (f"{s.csv}.csv", printable(csv_text(s.table)).encode()) for s in data.sections if s.csv
    ]
    files += [(p.name, p.png) for p in data.plots]
    files.append(("report.md", text.encode()))
    if html:  # every file's bytes are made before the first is written
        files.append((HTML_FILE, printable(render_page(data, out)).encode()))
    for name, content in files:
        atomic_write_bytes(out / name, content)
    return text


#: A lone surrogate: a byte of a name that is not UTF-8 (``surrogateescape``), or worse.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with what UTF-8 cannot encode written as escapes: a path that is not UTF-8
    (a run folder named ``out_\\xff`` reaches Python as a surrogate escape) shows as
    ``out_\\xff``, never a UnicodeEncodeError after the figures were written."""
    return _SURROGATE.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
