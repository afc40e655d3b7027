"""Result tables: the per-run summary and the RSB paper's Tables 1, 2 and 6.

All rates are shown in percent with one decimal; intervals are Wilson 95% (nSG: mapped
from the interval of successes among grasps). The paper's "Avg" column is the mean over
the six suites and is shown only when all six are present (else ``-``).

Tables are lists of rows of strings (the first row is the header), rendered with
:func:`markdown` or :func:`csv_text`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from rsb_mj.evaluation.metrics import Rate, SuiteMetrics
from rsb_mj.suites import SUITES

Table = list[list[str]]
#: Shown where a value is undefined (nSG without grasps, Avg without all six suites).
MISSING = "-"


def pct(value: float | None) -> str:
    """``0.4567`` -> ``"45.7"``; None -> ``"-"``."""
    return MISSING if value is None else f"{100 * value:.1f}"


def with_interval(value: float | None, interval: tuple[float, float] | None) -> str:
    """``"45.7 [30.1, 62.0]"``, or ``"-"`` when undefined."""
    if value is None or interval is None:
        return MISSING
    return f"{pct(value)} [{pct(interval[0])}, {pct(interval[1])}]"


def rate_cell(rate: Rate) -> str:
    """A rate with its interval."""
    return with_interval(rate.value, rate.interval)


def summary_table(metrics: Sequence[SuiteMetrics]) -> Table:
    """One row per (policy, suite): n, GSR, TSR, nSG, correct-grasp rate, chance verdict."""
    rows = [["policy", "suite", "n", "GSR %", "TSR %", "nSG %", "correct grasp %", "vs chance"]]
    for m in metrics:
        rows.append(
            [
                m.policy,
                m.suite,
                str(m.episodes),
                rate_cell(m.gsr),
                rate_cell(m.tsr),
                with_interval(m.nsg, m.nsg_interval),
                rate_cell(m.correct_grasp) if m.correct_grasp.n else MISSING,
                m.chance_verdict,
            ]
        )
    return rows


def _ordered_suites(runs: dict[str, list[SuiteMetrics]]) -> list[str]:
    present = {m.suite for ms in runs.values() for m in ms}
    known = [s for s in SUITES if s in present]
    return known + sorted(present - set(known))


def _avg(values: list[float | None], complete: bool) -> str:
    if not complete or any(v is None for v in values):
        return MISSING
    return pct(sum(values) / len(values))  # type: ignore[arg-type]


def paper_table(runs: dict[str, list[SuiteMetrics]], metric: str) -> Table:
    """Table 1 (``metric="tsr"``), Table 2 (``"nsg"``) or Table 6 (``"gsr_tsr"``).

    Args:
        runs: row label (e.g. ``"expert"`` or ``"runs/a:expert"``) -> its suite metrics.
        metric: which table.
    """
    suites = _ordered_suites(runs)
    complete = all(s in suites for s in SUITES) and len(suites) == len(SUITES)
    if metric == "gsr_tsr":
        header = ["model"] + [f"{s} {k}" for s in suites for k in ("GSR", "TSR")]
        header += ["Avg GSR", "Avg TSR"]
    else:
        header = ["model", *suites, "Avg"]
    rows = [header]
    for label, metrics in runs.items():
        by_suite = {m.suite: m for m in metrics}
        have = all(s in by_suite for s in SUITES)
        row = [label]
        if metric == "gsr_tsr":
            gsr = [by_suite[s].gsr.value if s in by_suite else None for s in suites]
            tsr = [by_suite[s].tsr.value if s in by_suite else None for s in suites]
            for g, t in zip(gsr, tsr, strict=True):
                row += [pct(g), pct(t)]
            row += [_avg(gsr, complete and have), _avg(tsr, complete and have)]
        else:
            vals = []
            for s in suites:
                m = by_suite.get(s)
                vals.append(None if m is None else (m.tsr.value if metric == "tsr" else m.nsg))
            row += [pct(v) for v in vals] + [_avg(vals, complete and have)]
        rows.append(row)
    return rows


def markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(table[0]), sep, *(line(r) for r in table[1:])])


def csv_text(table: Table) -> str:
    """CSV text of the table (header first)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(table)
    return buf.getvalue()
