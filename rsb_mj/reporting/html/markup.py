"""HTML fragments of the report's pieces: escaped text, the header's Markdown lines, tables.

Every cell is the string the tables module formatted (the one the Markdown report prints),
escaped and nothing else, so the page and ``report.md`` cannot disagree on a number.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from rsb_mj.evaluation.tables import Table

__all__ = ["esc", "inline", "lines_html", "table_html"]

_CODE = re.compile(r"`([^`]*)`")


def esc(text: object) -> str:
    """``text`` escaped for HTML text and attribute values."""
    return html.escape(str(text), quote=True)


def inline(text: str) -> str:
    """One Markdown line's inline markup as HTML: `code` spans; the rest escaped."""
    parts = _CODE.split(text)
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(parts))


def lines_html(lines: Sequence[str]) -> str:
    """Markdown lines as HTML: blank lines separate paragraphs, ``- `` lines are list items
    (a list follows the paragraph it belongs to)."""
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if para:
            out.append("<p>" + " ".join(inline(x) for x in para) + "</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{inline(x)}</li>" for x in items) + "</ul>")
            items.clear()

    for line in lines:
        if not line.strip():
            flush()
        elif line.startswith("- "):
            items.append(line[2:])
        else:
            if items:
                flush()
            para.append(line)
    flush()
    return "\n".join(out)


def table_html(table: Table, *, css: str = "data sortable", heat: bool = False) -> str:
    """A ``<table>``: the first row as ``<th>`` (click to sort when ``sortable``), the rest
    as ``<td>``, each cell's text exactly the table's string.

    Args:
        table: header row first.
        css: the table's class attribute.
        heat: shade integer cells by their share of the table's largest (confusion
            matrices); the first column stays a label.
    """
    top = 0
    if heat:
        top = max((int(c) for row in table[1:] for c in row[1:] if c.isdigit()), default=0)
    head = "".join(f"<th>{esc(c)}</th>" for c in table[0])
    body = []
    for row in table[1:]:
        cells = []
        for i, c in enumerate(row):
            style = ""
            if heat and i and c.isdigit() and top:
                style = f' style="--heat:{int(c) / top:.3f}"'
            cells.append(f"<td{style}>{esc(c)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table class="{esc(css)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
