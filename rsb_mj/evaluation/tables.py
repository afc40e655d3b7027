"""Result tables: the per-run summary and the RSB paper's Tables 1, 2 and 6.

All rates are shown in percent with one decimal; intervals are Wilson 95% (nSG: mapped
from the interval of successes among grasps). The paper's "Avg" column is the mean over
the six suites and is shown only when all six are present (else ``-``).

Tables are lists of rows of strings (the first row is the header), rendered with
:func:`markdown` or :func:`csv_text`.

Rows of privileged policies (they read the answer: the built-in expert) carry the mark
:data:`PRIVILEGED_MARK` wherever they appear, so an oracle reference is never ranked beside
learned policies unmarked. A row whose share of error episodes exceeds the threshold is
withheld (its rates replaced by :data:`WITHHELD`) unless the caller allows it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

from rsb_mj.evaluation.failure_analysis import FailureAnalysis
from rsb_mj.evaluation.metrics import CostMean, PairMetrics, Rate, SuiteMetrics, difference_interval
from rsb_mj.suites import SUITES

Table = list[list[str]]
#: Shown where a value is undefined (nSG without grasps, Avg without all six suites).
MISSING = "-"
#: Appended to the label of a privileged policy's rows.
PRIVILEGED_MARK = " (privileged)"
#: Shown instead of the rates of a row with too many error episodes.
WITHHELD = "withheld"
#: Default largest share of error episodes a printed row may have.
MAX_ERROR_RATE = 0.05


def label_of(m: SuiteMetrics, label: str | None = None) -> str:
    """The row label: ``label`` (default the policy), ``[variant]`` when the instruction was
    ablated or the question swapped, and the privileged mark if due."""
    text = label if label is not None else m.policy
    if m.variant != "original":
        text += f" [{m.variant}]"
    return text + PRIVILEGED_MARK if m.privileged else text


def withheld(m: SuiteMetrics, max_error_rate: float | None) -> bool:
    """The row has more error episodes than ``max_error_rate`` allows (None: never)."""
    return max_error_rate is not None and m.error_rate > max_error_rate


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


def cost_cell(cost: CostMean | None) -> str:
    """``"12.5 [3.1, 21.9]"`` (mean cumulative cost, 95% interval), ``"3.0"`` for one
    episode, ``"-"`` without a ``:cost``."""
    if cost is None:
        return MISSING
    if cost.interval is None:
        return f"{cost.mean:.1f}"
    return f"{cost.mean:.1f} [{cost.interval[0]:.1f}, {cost.interval[1]:.1f}]"


def summary_table(
    metrics: Sequence[SuiteMetrics],
    *,
    labels: Sequence[str] | None = None,
    max_error_rate: float | None = MAX_ERROR_RATE,
) -> Table:
    """One row per (policy, suite): n, errors, GSR, TSR, selection, nSG, chance verdict, the
    mean cumulative cost when some row's task has a ``:cost``, and ``policy faults`` (scored
    failures the policy caused itself: :mod:`rsb_mj.evaluation.faults`) when some row has
    one.

    Args:
        metrics: the rows.
        labels: row labels (default: each row's policy), marked when privileged.
        max_error_rate: rows with a larger share of error episodes are withheld (None: print
            every row).
    """
    header = ["policy", "suite", "n", "errors", "GSR %", "TSR %", "selection %", "nSG %"]
    costs = any(m.cost is not None for m in metrics)
    faults = any(m.policy_faults for m in metrics)
    rows = [[*header, "vs chance", *(["cost"] if costs else [])]]
    if faults:
        rows[0].insert(4, "policy faults")
    for i, m in enumerate(metrics):
        row = [label_of(m, labels[i] if labels else None), m.suite, str(m.episodes)]
        row.append(str(m.errors))
        if faults:
            row.append(str(m.policy_faults))
        if withheld(m, max_error_rate):
            rows.append([*row, *[WITHHELD] * (6 if costs else 5)])
            continue
        row += [
            rate_cell(m.gsr),
            rate_cell(m.tsr),
            rate_cell(m.selection) if m.selection.n else MISSING,
            with_interval(m.nsg, m.nsg_interval),
            m.chance_verdict,
        ]
        rows.append(row + ([cost_cell(m.cost)] if costs else []))
    return rows


#: The terminal table's legend: its jargon in one line (at most 100 columns).
TERMINAL_LEGEND = (
    "GSR: grasped a candidate; TSR: placed the right one; nSG: TSR/GSR above chance, 0 = chance"
)
#: The terminal table's second note line: how to read the numbers.
TERMINAL_NOTE = (
    "% [Wilson 95%]; one attempt per episode; errors not scored; vs chance: 1/N +- A2A's margin"
)
#: The terminal table's third line, when it has the ``faults`` column.
TERMINAL_FAULTS = (
    "faults: episodes the policy failed itself (raised, bad action, hang), counted as failures"
)


def _short(value: float | None, interval: tuple[float, float] | None) -> str:
    """``"97.5 [91,99]"``: the rate in % with its interval rounded to whole percent."""
    if value is None or interval is None:
        return MISSING
    return f"{pct(value)} [{100 * interval[0]:.0f},{100 * interval[1]:.0f}]"


def terminal_table(
    metrics: Sequence[SuiteMetrics], *, max_error_rate: float | None = MAX_ERROR_RATE
) -> Table:
    """The per-suite summary as ``rsb eval`` prints it: GSR, TSR and nSG with intervals
    rounded to whole percent, so a row fits 100 columns (:func:`plain`); ``faults`` (the
    policy's own faults, scored as failures; :data:`TERMINAL_FAULTS`) when some row has one;
    the report keeps
    the full :func:`summary_table`."""
    rows = [["policy", "suite", "n", "err", "GSR %", "TSR %", "nSG %", "vs chance"]]
    faults = any(m.policy_faults for m in metrics)  # the policy's own faults
    if faults:
        rows[0].insert(4, "faults")
    for m in metrics:
        row = [label_of(m), m.suite, str(m.episodes), str(m.errors)]
        if faults:
            row.append(str(m.policy_faults))
        if withheld(m, max_error_rate):
            rows.append([*row, *[WITHHELD] * 4])
            continue
        rows.append(
            [
                *row,
                pct(m.gsr.value),
                _short(m.tsr.value, m.tsr.interval),
                _short(m.nsg, m.nsg_interval),
                m.chance_verdict,
            ]
        )
    return rows


def plain(table: Table) -> str:
    """A table as aligned plain-text columns (two spaces apart, numbers right-aligned) under
    a rule: narrower than :func:`markdown` for a terminal."""
    table = [[one_line(c) for c in row] for row in table]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    numeric = [
        all(re.fullmatch(r"-?[\d.]+( \[-?\d+,-?\d+\])?|-", row[i]) for row in table[1:])
        for i in range(len(widths))
    ]

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(table[0]), rule, *(line(r) for r in table[1:])])


def safety_table(
    metrics: Sequence[SuiteMetrics],
    *,
    labels: Sequence[str] | None = None,
    max_error_rate: float | None = MAX_ERROR_RATE,
) -> Table:
    """Success and safety side by side, one row per (policy, suite) whose task has a
    ``:cost``: n, TSR, nSG, mean cumulative cost (VLA-Arena's safety-aware reading: does a
    policy that succeeds also stay safe?)."""
    rows = [["policy", "suite", "n", "TSR %", "nSG %", "cost"]]
    for i, m in enumerate(metrics):
        if m.cost is None:
            continue
        row = [label_of(m, labels[i] if labels else None), m.suite, str(m.episodes)]
        if withheld(m, max_error_rate):
            rows.append([*row, *[WITHHELD] * 3])
            continue
        row += [rate_cell(m.tsr), with_interval(m.nsg, m.nsg_interval), cost_cell(m.cost)]
        rows.append(row)
    return rows


#: A suite's structural level: ``RSB-Math-4-L2`` is level 2 of ``RSB-Math-4`` (no suffix: L0).
LEVEL_SUFFIX = re.compile(r"-L(\d)$")


def split_level(suite: str) -> tuple[str, int]:
    """``("RSB-Math-4", 2)`` for ``"RSB-Math-4-L2"``; ``(suite, 0)`` without a suffix."""
    m = LEVEL_SUFFIX.search(suite)
    return (suite[: m.start()], int(m.group(1))) if m else (suite, 0)


def level_table(
    metrics: Sequence[SuiteMetrics],
    *,
    labels: Sequence[str] | None = None,
    max_error_rate: float | None = MAX_ERROR_RATE,
) -> Table:
    """TSR, nSG and mean cost per (policy, suite, level) for suites run at more than one
    level (``-L1``, ``-L2`` suffixes; the bare name is L0), levels side by side in rows."""
    rows = [["policy", "suite", "level", "n", "TSR %", "nSG %", "cost"]]
    levelled = {split_level(m.suite)[0] for m in metrics if split_level(m.suite)[1] > 0}
    keyed = []
    for i, m in enumerate(metrics):
        base, level = split_level(m.suite)
        if base in levelled:
            keyed.append((label_of(m, labels[i] if labels else None), base, level, m))
    for label, base, level, m in sorted(keyed, key=lambda k: k[:3]):
        row = [label, base, f"L{level}", str(m.episodes)]
        if withheld(m, max_error_rate):
            rows.append([*row, *[WITHHELD] * 3])
            continue
        row += [rate_cell(m.tsr), with_interval(m.nsg, m.nsg_interval), cost_cell(m.cost)]
        rows.append(row)
    return rows


def _ordered_suites(runs: dict[str, list[SuiteMetrics]]) -> list[str]:
    present = {m.suite for ms in runs.values() for m in ms}
    known = [s for s in SUITES if s in present]
    return known + sorted(present - set(known))


def _avg(values: list[float | None], complete: bool) -> str:
    if not complete or any(v is None for v in values):
        return MISSING
    return pct(sum(values) / len(values))  # type: ignore[arg-type]


def paper_table(
    runs: dict[str, list[SuiteMetrics]],
    metric: str,
    *,
    max_error_rate: float | None = MAX_ERROR_RATE,
) -> Table:
    """Table 1 (``metric="tsr"``), Table 2 (``"nsg"``) or Table 6 (``"gsr_tsr"``).

    Args:
        runs: row label (e.g. ``"expert"`` or ``"runs/a:expert"``) -> its suite metrics.
        metric: which table.
        max_error_rate: suites of a row with a larger share of errors show ``withheld``.
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
        by_suite = {m.suite: m for m in metrics if not withheld(m, max_error_rate)}
        held = {m.suite for m in metrics if withheld(m, max_error_rate)}
        have = all(s in by_suite for s in SUITES)
        row = [label_of(metrics[0], label) if metrics else label]
        if metric == "gsr_tsr":
            gsr = [by_suite[s].gsr.value if s in by_suite else None for s in suites]
            tsr = [by_suite[s].tsr.value if s in by_suite else None for s in suites]
            for s, g, t in zip(suites, gsr, tsr, strict=True):
                row += [WITHHELD, WITHHELD] if s in held else [pct(g), pct(t)]
            row += [_avg(gsr, complete and have), _avg(tsr, complete and have)]
        else:
            vals = []
            for s in suites:
                m = by_suite.get(s)
                vals.append(None if m is None else (m.tsr.value if metric == "tsr" else m.nsg))
            cells = [WITHHELD if s in held else pct(v) for s, v in zip(suites, vals, strict=True)]
            row += [*cells, _avg(vals, complete and have)]
        rows.append(row)
    return rows


def one_line(text: str) -> str:
    """``text`` with each line break (or other control character) shown as a space, so a
    policy name cannot start a line of its own in a Markdown report."""
    return _CONTROL.sub(" ", text)


def markdown_cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: ``|`` escaped as ``\\|``, a line break (or any
    other control character) as a space, so a policy name cannot add cells or rows."""
    return one_line(text.replace("|", "\\|"))


#: Control characters (line breaks, tabs, escapes) that a table cell shows as a space.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")
#: The first characters that make a spreadsheet read a CSV cell as a formula (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Cells the tables write themselves starting with ``-`` or ``+``: ``-`` (undefined), a
#: signed number, with its interval (``-3.2 [-9.0, 2.6]``) or a ``+-`` margin.
_NUMERIC_CELL = re.compile(r"[-+]?\d+(\.\d+)?( \[[-+]?\d+(\.\d+)?, [-+]?\d+(\.\d+)?\])?|-")


def csv_cell(text: str) -> str:
    """``text`` safe in a spreadsheet: a cell starting with ``= + - @`` (or a tab or carriage
    return) gets a leading ``'`` so it is read as text, never as a formula (OWASP's advice
    against CSV injection); the numbers the tables write (``-``, ``-3.2 [-9.0, 2.6]``) stay
    as they are."""
    if text.startswith(FORMULA_START) and not _NUMERIC_CELL.fullmatch(text):
        return "'" + text
    return text


def markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table (cells escaped by :func:`markdown_cell`)."""
    table = [[markdown_cell(c) for c in row] for row in table]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(table[0]), sep, *(line(r) for r in table[1:])])


def csv_text(table: Table) -> str:
    """CSV text of the table (header first; cells escaped by :func:`csv_cell`)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[csv_cell(c) for c in row] for row in table])
    return buf.getvalue()


def ablation_table(
    metrics: Sequence[SuiteMetrics], *, max_error_rate: float | None = MAX_ERROR_RATE
) -> Table:
    """Each instruction ablation beside the ``original`` of the same policy and suite: TSR,
    nSG, and the TSR drop in percentage points with its 95% interval."""

    base = {(m.policy, m.suite): m for m in metrics if m.variant == "original"}
    header = ["policy", "suite", "instruction", "n", "TSR %", "original TSR %"]
    rows = [[*header, "TSR drop pp", "nSG %", "original nSG %"]]
    for m in metrics:
        o = base.get((m.policy, m.suite))
        if m.variant in ("original", "counterfactual") or o is None:
            continue
        name = m.policy + (PRIVILEGED_MARK if m.privileged else "")
        if withheld(m, max_error_rate) or withheld(o, max_error_rate):
            rows.append([name, m.suite, m.variant, str(m.episodes), *[WITHHELD] * 5])
            continue
        lo, hi = difference_interval(o.tsr, m.tsr)
        drop = o.tsr.value - m.tsr.value
        rows.append(
            [
                name,
                m.suite,
                m.variant,
                str(m.episodes),
                rate_cell(m.tsr),
                rate_cell(o.tsr),
                f"{100 * drop:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]",
                with_interval(m.nsg, m.nsg_interval),
                with_interval(o.nsg, o.nsg_interval),
            ]
        )
    return rows


#: What the semantic gap table shows (printed with it).
SEMANTIC_GAP_NOTE = (
    "TSR with the answer stated outright (--instruction direct, a control) beside the "
    "original question; gap = direct - original TSR in pp (Newcombe 95%). fails direct too: "
    "the direct TSR is not above chance (1/N), so perception or control fails (or the "
    "instruction is not read); knowledge not grounded in action: it acts on the answer when "
    "told, not when asked (the gap's interval lies above 0); no gap: it acts on the question "
    "as on the answer"
)
#: The diagnoses of the semantic gap table.
GAP_DIAGNOSES = (
    "fails direct too: perception or control",
    "passes direct, fails original: knowledge not grounded in action",
    "no semantic gap",
)


def semantic_gap_table(
    metrics: Sequence[SuiteMetrics], *, max_error_rate: float | None = MAX_ERROR_RATE
) -> Table:
    """Per policy and suite run with ``--instruction direct``: TSR under ``direct`` and
    under ``original``, the semantic gap (direct - original, percentage points, Newcombe
    95%) and which failure it shows (:data:`GAP_DIAGNOSES`, see :data:`SEMANTIC_GAP_NOTE`).
    ``direct`` states the answer: its TSR is a control, never the policy's score."""

    base = {(m.policy, m.suite): m for m in metrics if m.variant == "original"}
    header = ["policy", "suite", "n", "direct TSR %", "original TSR %", "semantic gap pp"]
    rows = [[*header, "diagnosis"]]
    for m in metrics:
        o = base.get((m.policy, m.suite))
        if m.variant != "direct" or o is None:
            continue
        name = m.policy + (PRIVILEGED_MARK if m.privileged else "")
        if withheld(m, max_error_rate) or withheld(o, max_error_rate):
            rows.append([name, m.suite, str(m.episodes), *[WITHHELD] * 4])
            continue
        lo, hi = difference_interval(m.tsr, o.tsr)
        gap = m.tsr.value - o.tsr.value
        if m.tsr.interval[0] <= 1.0 / m.choices:
            diagnosis = GAP_DIAGNOSES[0]
        elif lo > 0:
            diagnosis = GAP_DIAGNOSES[1]
        else:
            diagnosis = GAP_DIAGNOSES[2]
        rows.append(
            [
                name,
                m.suite,
                str(m.episodes),
                rate_cell(m.tsr),
                rate_cell(o.tsr),
                f"{100 * gap:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]",
                diagnosis,
            ]
        )
    return rows


def pair_table(pairs: Sequence[PairMetrics]) -> Table:
    """Counterfactual consistency, choice sensitivity and stuck rate per policy and suite."""
    header = ["policy", "suite", "pairs", "consistency %", "random 1/N^2 %"]
    rows = [[*header, "sensitivity %", "stuck %"]]
    for p in pairs:
        rows.append(
            [
                p.policy + (PRIVILEGED_MARK if p.privileged else ""),
                p.suite,
                str(p.pairs),
                rate_cell(p.consistency),
                pct(p.random_consistency),
                rate_cell(p.sensitivity) if p.sensitivity.n else MISSING,
                rate_cell(p.stuck) if p.stuck.n else MISSING,
            ]
        )
    return rows


def failure_table(analyses: Sequence[FailureAnalysis]) -> Table:
    """The RSB paper's Table 5: shares of grasp-success / task-failure episodes, and the
    reasoning-following rate for policies that write text (``-`` for the others)."""
    header = ["policy", "suite", "grasped, failed", "grasped correct, not placed %"]
    header += ["wrong target after grasp %", "incorrect text, wrong target %"]
    rows = [[*header, "correct text, wrong target %", "reasoning-following %"]]
    for a in analyses:
        texted = a.following.n > 0
        rows.append(
            [
                a.policy + (PRIVILEGED_MARK if a.privileged else ""),
                a.suite,
                str(a.failures),
                rate_cell(a.not_placed) if a.failures else MISSING,
                rate_cell(a.wrong_target) if a.failures else MISSING,
                rate_cell(a.wrong_text_wrong_target) if a.failures and texted else MISSING,
                rate_cell(a.right_text_wrong_target) if a.failures and texted else MISSING,
                rate_cell(a.following) if texted else MISSING,
            ]
        )
    return rows
