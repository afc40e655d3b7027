"""One table per perturbation axis: VLA-Arena's visual (V0-V4) and language (W0-W4) levels.

A run directory keeps one visual and one language level (``rsb eval --visual-level K``), so a
report compares levels across the run directories it is given. When its rows hold more than
one level of an axis, :func:`axis_table` lays them out as that axis' table: one row per
policy and level, one column per suite, each cell ``TSR / nSG`` in percent, plus ``/ cost``
(mean cumulative safety cost) for tasks with a ``:cost``. Rows at another level of the other
axis say so in their level cell (``V4 W4``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rsb_mj.evaluation.metrics import SuiteMetrics
from rsb_mj.evaluation.tables import (
    MAX_ERROR_RATE,
    MISSING,
    WITHHELD,
    Table,
    label_of,
    pct,
    withheld,
)

#: Axis name -> (settings key, level prefix).
AXES: dict[str, tuple[str, str]] = {
    "visual": ("visual_level", "V"),
    "language": ("language_level", "W"),
}


def _level(m: SuiteMetrics, key: str) -> int:
    return int(dict(m.settings).get(key) or 0)


def axis_levels(metrics: Sequence[SuiteMetrics], axis: str) -> list[int]:
    """The levels of ``axis`` (``"visual"`` or ``"language"``) present among ``metrics``."""
    key = AXES[axis][0]
    return sorted({_level(m, key) for m in metrics if m.variant == "original"})


def _cell(m: SuiteMetrics, max_error_rate: float | None) -> str:
    if withheld(m, max_error_rate):
        return WITHHELD
    nsg = MISSING if m.nsg is None else pct(m.nsg)
    cell = f"{pct(m.tsr.value)} / {nsg}"
    cost = getattr(m, "cost", None)
    if cost is not None:
        cell += f" / {cost.mean:.1f}"
    return cell


def axis_table(
    metrics: Sequence[SuiteMetrics],
    axis: str,
    *,
    max_error_rate: float | None = MAX_ERROR_RATE,
) -> Table:
    """The ``axis`` table (header only when fewer than two of its levels are present).

    Args:
        metrics: rows of every run (instruction ablations and counterfactuals are left out).
        axis: ``"visual"`` (V0..V4) or ``"language"`` (W0..W4).
        max_error_rate: cells of rows with a larger share of error episodes are withheld.
    """
    key, prefix = AXES[axis]
    other_key, other_prefix = next(v for k, v in AXES.items() if k != axis)
    rows_in = [m for m in metrics if m.variant == "original"]
    suites = list(dict.fromkeys(m.suite for m in rows_in))
    table: Table = [["policy", "level", *suites]]
    if len(axis_levels(rows_in, axis)) < 2:
        return table
    cells: dict[tuple[str, int, int], dict[str, str]] = {}
    for m in rows_in:
        row = cells.setdefault((label_of(m), _level(m, key), _level(m, other_key)), {})
        row.setdefault(m.suite, _cell(m, max_error_rate))
    for (label, level, other), by_suite in sorted(cells.items(), key=lambda kv: kv[0]):
        name = f"{prefix}{level}" + (f" {other_prefix}{other}" if other else "")
        table.append([label, name, *(by_suite.get(s, MISSING) for s in suites)])
    return table
