"""The Markdown renderer of a report: ``report.md``.

:func:`markdown_text` lays out a computed
:class:`~rsb_mj.reporting.model.ReportData` (the HTML page,
:mod:`rsb_mj.reporting.html`, lays out the same object): the title and header lines, each
table under its heading and note, the confusion matrices, the notes, and the plots of
:data:`MARKDOWN_PLOTS` as images beside the file. It computes no number of its own.
"""

from __future__ import annotations

from rsb_mj.evaluation.tables import markdown, one_line
from rsb_mj.reporting.model import ReportData

__all__ = ["MARKDOWN_PLOTS", "markdown_text"]

#: Plots the Markdown report shows inline (the confusion heatmaps are files beside it).
MARKDOWN_PLOTS = ("ablations.png", "rates.png")


def markdown_text(data: ReportData) -> str:
    """The Markdown report of ``data`` (``report.md``)."""
    parts = ["# rsb_mj evaluation report", "", *map(one_line, data.header)]
    for s in data.sections:
        parts += ["", f"## {s.title}", "", *([s.note, ""] if s.note else []), markdown(s.table)]
    if data.confusions:  # question tasks only
        parts += ["", "## Confusion: correct option (rows) vs first grasped option (columns)"]
    for c in data.confusions:
        parts += ["", f"### {one_line(c.title)}", "", markdown(c.table)]
    for note in data.notes:
        parts += ["", note]
    for p in data.plots:
        if p.name in MARKDOWN_PLOTS:
            parts += ["", f"![{p.caption}]({p.name})"]
    return "\n".join(parts) + "\n"
