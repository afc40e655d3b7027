"""The HTML report: ``rsb report DIR... --html`` writes ``report.html`` beside ``report.md``.

:func:`render_page` lays out the report :func:`rsb_mj.reporting.report.build_report`
computes (one object, two renderers: the page and ``report.md`` show the same strings);
:mod:`.episodes` holds the episode browser's data, :mod:`.frames` the head-camera frames of
recorded videos.
"""

from __future__ import annotations

from rsb_mj.reporting.html.page import CSP, render_page

__all__ = ["CSP", "render_page"]
