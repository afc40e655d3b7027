"""``report.html``: one page of a report (``rsb report DIR... --html``).

The page lays out a :class:`~rsb_mj.reporting.model.ReportData`, the same object the
Markdown report prints, so its numbers are the Markdown report's strings:

* the header (runs, protocol, settings, renderer, tasks, error episodes);
* every table (the per-suite summary, safety, levels, perturbation axes, instruction
  ablations, counterfactual pairs, Act2Answer per category, Tables 5, 1, 2, 6, and probe
  tables when a run folder has them), sortable by any column;
* the confusion matrices as shaded tables and the PNG plots, inline;
* an episode browser: filters (run, policy, suite, level, instruction, perturbation,
  outcome, failure reason, choice; task kind and task file when goal tasks are among them),
  a text search, sortable columns, pages of 50 rows, and each episode's instruction, choice
  against answer (a goal task's: its task file, tier, success and failure class), grasp and
  cost signals, the same episode under the other rows, and its head-camera frames with a
  link to its video.

Nothing is fetched: styles, script, data and images are inline, and the page's content
security policy (``default-src 'none'``) makes the browser refuse any load from elsewhere.
The script is plain JavaScript (``assets/report.js``), no library. Its only links are to
files outside it, relative to the page: the CSV files beside it and the MP4 videos in the
run folders (an episode names its video's path as the run folder gives it); the overview
says so.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from rsb_mj.evaluation.metrics import USER_FILES, suite_of
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.reporting.html.episodes import browser_data, browser_json
from rsb_mj.reporting.html.frames import FRAMES
from rsb_mj.reporting.html.markup import esc, lines_html, table_html
from rsb_mj.reporting.model import ReportData, Section
from rsb_mj.version import rsb_mj_version

__all__ = ["CSP", "render_page"]

#: The page's content security policy: inline styles, script and ``data:`` images only.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
#: Title of the page.
TITLE = "rsb_mj evaluation report"


def _asset(name: str) -> str:
    return resources.files("rsb_mj.reporting.html").joinpath("assets", name).read_text("utf-8")


def _section(s: Section) -> str:
    note = f'<p class="note">{esc(s.note)}</p>' if s.note else ""
    files = f'<p class="files"><a href="{esc(s.csv)}.csv">{esc(s.csv)}.csv</a></p>' if s.csv else ""
    return (
        f'<section class="table-section" id="sec-{esc(s.key)}" data-key="{esc(s.key)}">'
        f'<h2>{esc(s.title)}</h2>{note}<div class="scroll">{table_html(s.table)}</div>'
        f"{files}</section>"
    )


def _nav(items: Iterable[tuple[str, str]]) -> str:
    links = "".join(f'<a href="#{esc(anchor)}">{esc(text)}</a>' for anchor, text in items)
    return f'<nav class="toc">{links}</nav>'


def _confusions(data: ReportData) -> str:
    if not data.confusions:  # goal tasks only: no question, no choice
        return ""
    figures = "".join(
        f'<figure class="confusion" data-label="{esc(c.label)}" data-suite="{esc(c.suite)}">'
        f"<figcaption>{esc(c.title)}</figcaption>"
        f"{table_html(c.table, css='data heat', heat=True)}</figure>"
        for c in data.confusions
    )
    return (
        '<section id="confusion"><h2>Confusion: correct option (rows) vs first grasped '
        f'option (columns)</h2><div class="grid">{figures}</div></section>'
    )


def _plots(data: ReportData) -> str:
    if not data.plots and not data.notes:
        return ""
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in data.notes)
    figures = "".join(
        f'<figure class="plot"><img alt="{esc(p.caption)}" '
        f'src="data:image/png;base64,{base64.b64encode(p.png).decode("ascii")}">'
        f"<figcaption>{esc(p.caption)} ({esc(p.name)})</figcaption></figure>"
        for p in data.plots
    )
    return f'<section id="plots"><h2>Plots</h2>{notes}<div class="plots">{figures}</div></section>'


def _episodes(data: ReportData) -> dict[str, list[EpisodeRecord]]:
    """Every record of the report per row label: question tasks' then goal tasks'."""
    out: dict[str, list[EpisodeRecord]] = {k: list(v) for k, v in data.runs.items()}
    for label, records in data.goals.items():
        out.setdefault(label, []).extend(records)
    return out


def _counts(data: ReportData) -> str:
    """The overview's tiles: episodes, runs, rows, suites (question suites and shipped goal
    suites: a user's own goal files make no suite), goal task files, error episodes; each
    label singular for 1."""
    episodes = _episodes(data)
    records = [r for recs in episodes.values() for r in recs]
    suites = {suite_of(r.suite) if r.is_goal else r.suite for r in records} - {USER_FILES}
    files = {r.suite for r in records if r.is_goal}
    errors = sum(r.is_error for r in records)
    cards = (
        (len(records), "episode"),
        (len(data.dirs), "run"),
        (len(episodes), "row"),
        *(((len(suites), "suite"),) if suites or not files else ()),
        *(((len(files), "goal task file"),) if files else ()),
        (errors, "error episode"),
    )
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><b>{n:,}</b><span>{esc(label if n == 1 else label + "s")}</span>'
            "</div>"
            for n, label in cards
        )
        + "</div>"
        + '<p class="note">Everything this page shows is inside it (tables, plots, head-camera '
        "frames); it links only to the CSV files in its report folder and to the episodes' "
        "MP4 videos in the run folders, by paths relative to the page: moved alone, it keeps "
        "all but those links.</p>"
    )


_BROWSER = """<section id="episodes"><h2>Episodes</h2>
<p class="note">Every episode of the runs (error episodes included: they are excluded from the
rates). Filter, search, sort by a column header, and click a row for its instruction, choice
against answer, signals and frames.</p>
<div class="filters" id="ep-filters"></div>
<p class="status" id="ep-status" role="status"></p>
<div class="browser"><div class="scroll"><table class="episodes" id="ep-table">
<thead><tr></tr></thead><tbody></tbody></table></div>
<aside class="detail" id="ep-detail" hidden></aside></div>
<div class="pager" id="ep-pager"></div>
</section>"""


def render_page(data: ReportData, out: Path, *, frames: int = FRAMES) -> str:
    """The HTML text of the report page that goes in ``out`` (video links are relative to
    it).

    Args:
        data: the computed report (:func:`rsb_mj.reporting.report.build_report`).
        out: the report folder the page is written to.
        frames: head-camera frames shown per recorded video (0: a link only).
    """
    episodes = browser_data(_episodes(data), data.run_dirs, out, frames=frames)
    nav = [("overview", "Overview")]
    nav += [(f"sec-{s.key}", s.title) for s in data.sections]
    if data.confusions:
        nav += [("confusion", "Confusion")]
    if data.plots or data.notes:
        nav += [("plots", "Plots")]
    nav += [("episodes", "Episodes")]
    body = [
        f'<header class="top"><h1>{esc(TITLE)}</h1>'
        f'<p class="sub">rsb_mj {esc(rsb_mj_version())} &middot; runs: '
        + ", ".join(f"<code>{esc(d)}</code>" for d in data.dirs)
        + f"</p>{_nav(nav)}</header>",
        "<main>",
        f'<section id="overview" class="prose"><h2>Overview</h2>{_counts(data)}'
        f"{lines_html(data.header)}</section>",
        *(_section(s) for s in data.sections),
        _confusions(data),
        _plots(data),
        _BROWSER,
        "</main>",
    ]
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
            '<link rel="icon" href="data:,">',
            f"<title>{esc(TITLE)}</title>",
            f"<style>{_asset('report.css')}</style>",
            "</head><body>",
            *body,
            f'<script type="application/json" id="rsb-episodes">{browser_json(episodes)}</script>',
            f"<script>{_asset('report.js')}</script>",
            "</body></html>",
            "",
        ]
    )
