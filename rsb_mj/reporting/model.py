"""What a report holds, computed once and drawn by each renderer (Markdown, HTML).

:func:`rsb_mj.reporting.report.build_report` computes a :class:`ReportData` from run
directories: the header lines, every table as a :class:`Section` (its rows are the strings
the tables module formats, so every renderer shows the same numbers), the confusion
matrices and the PNG plots. The Markdown renderer
(:func:`rsb_mj.reporting.markdown.markdown_text`) and the HTML page
(:mod:`rsb_mj.reporting.html`) only lay these out; neither computes a number of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rsb_mj.evaluation.metrics import SuiteMetrics
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.tables import Table

__all__ = ["Confusion", "Plot", "ReportData", "Section"]


@dataclass(frozen=True)
class Section:
    """One table of the report.

    Attributes:
        key: a stable id (``"summary"``, ``"table1_tsr"``, ``"probe:<dir>:<n>"`` ...): the
            HTML page's section id, and what tests look a table up by.
        title: the heading (``"Table 1: TSR (%)"``).
        note: the paragraph under the heading (``""`` for none).
        table: header row first, every cell a string.
        csv: the stem of the CSV file written beside ``report.md``, or None.
    """

    key: str
    title: str
    note: str
    table: Table
    csv: str | None = None


@dataclass(frozen=True)
class Confusion:
    """Chosen (columns, then ``none``) vs correct (rows) option counts of one row label on
    one suite."""

    label: str
    suite: str
    title: str
    table: Table


@dataclass(frozen=True)
class Plot:
    """A PNG figure: its file name in the report folder, a caption and its bytes."""

    name: str
    caption: str
    png: bytes


@dataclass(frozen=True)
class ReportData:
    """Everything a report shows (see the module docstring).

    Attributes:
        dirs: the run directories, as given.
        header: the Markdown lines between the title and the first table (runs, protocol,
            settings, renderers, tasks, error episodes, the privileged note).
        sections: the tables, in report order.
        confusions: one matrix per (row label, suite).
        plots: the figures (empty with ``plots=False`` or without matplotlib).
        notes: lines shown after the tables (e.g. why the plots were skipped).
        runs: question tasks' records per row label (:func:`rsb_mj.reporting.runs.load_runs`).
        metrics: suite metrics per row label.
        run_dirs: the run directory of each row label, of question and goal records (where
            its videos and probe file are).
        goals: goal tasks' records per row label (their tables are among ``sections``; the
            HTML page's episode browser lists them beside the question episodes).
    """

    dirs: tuple[Path, ...]
    header: tuple[str, ...]
    sections: tuple[Section, ...]
    confusions: tuple[Confusion, ...]
    plots: tuple[Plot, ...]
    notes: tuple[str, ...]
    runs: Mapping[str, list[EpisodeRecord]]
    metrics: Mapping[str, list[SuiteMetrics]]
    run_dirs: Mapping[str, Path]
    goals: Mapping[str, list[EpisodeRecord]] = field(default_factory=dict)

    def section(self, key: str) -> Section:
        """The section ``key``.

        Raises:
            KeyError: naming the keys there are.
        """
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(f"no section {key!r}; sections: {', '.join(s.key for s in self.sections)}")
