"""The report's tables: which appear, in which order, under which title and note.

:func:`table_sections` lists every table of the report as a
:class:`~rsb_mj.reporting.model.Section`: the per-suite summary first, then the
optional ones only when they have rows (safety, levels, the perturbation axes, instruction
ablations, the semantic gap, counterfactual pairs, Act2Answer), then the paper's Tables 1, 2,
5 (the failure analysis) and 6 in the paper's order (:data:`TABLES`). :func:`confusions`
gives the chosen vs correct option matrices, one per row label and suite. The cells are formatted by
:mod:`rsb_mj.evaluation.tables`; the renderers (Markdown, HTML) only lay them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rsb_mj.choices import LETTERS
from rsb_mj.evaluation.a2a_metrics import A2A_NOTE, a2a_metrics, a2a_table
from rsb_mj.evaluation.axes import axis_table
from rsb_mj.evaluation.failure_analysis import failure_analysis
from rsb_mj.evaluation.metrics import SuiteMetrics, confusion, pair_metrics
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.tables import (
    SEMANTIC_GAP_NOTE,
    Table,
    ablation_table,
    failure_table,
    label_of,
    level_table,
    pair_table,
    paper_table,
    safety_table,
    semantic_gap_table,
    summary_table,
)
from rsb_mj.reporting.model import Confusion, Section

__all__ = ["TABLES", "confusion_table", "confusions", "table_sections"]

#: The paper's tables: CSV stem -> (title, metric of
#: :func:`~rsb_mj.evaluation.tables.paper_table`).
TABLES = {
    "table1_tsr": ("Table 1: TSR (%)", "tsr"),
    "table2_nsg": ("Table 2: nSG (%)", "nsg"),
    "table6_gsr_tsr": ("Table 6: GSR / TSR (%)", "gsr_tsr"),
}


def confusion_table(records: Sequence[EpisodeRecord], suite: str, choices: int) -> Table:
    """Chosen (columns, then "none") vs correct (rows) option counts of one suite."""
    matrix = confusion([r for r in records if r.suite == suite], choices)
    header = ["correct \\ chosen", *LETTERS[choices], "none"]
    return [header] + [
        [letter, *map(str, counts)] for letter, counts in zip(LETTERS[choices], matrix, strict=True)
    ]


def confusions(
    runs: dict[str, list[EpisodeRecord]], metrics: dict[str, list[SuiteMetrics]]
) -> tuple[Confusion, ...]:
    """One confusion matrix per row label and suite of ``runs`` (in the order of
    ``metrics``: :func:`~rsb_mj.evaluation.metrics.summarize` of each label's records)."""
    return tuple(
        Confusion(
            label,
            m.suite,
            f"{label_of(m, label)} on {m.suite}",
            confusion_table(recs, m.suite, m.choices),
        )
        for label, recs in runs.items()
        for m in metrics[label]
    )


def table_sections(
    runs: dict[str, list[EpisodeRecord]],
    metrics: dict[str, list[SuiteMetrics]],
    max_error_rate: float | None,
) -> list[Section]:
    """Every table of the report, in order; optional ones only when they have rows.

    Every table keeps the rows of several run directories apart, under their row labels
    (``<dir name>:<policy>``), except the perturbation-axis tables, which join one policy's
    runs at different levels (one run directory per level) into one table."""
    labelled = [(label, m) for label, ms in metrics.items() for m in ms]
    flat = [m for _, m in labelled]
    labels = [label for label, _ in labelled]
    # the same rows named by their labels, for the tables that group by policy
    named = [replace(m, policy=label) for label, m in labelled]
    records = [replace(r, policy=label) for label, recs in runs.items() for r in recs]
    out = [
        Section(
            "summary",
            "Per suite",
            "",
            summary_table(flat, labels=labels, max_error_rate=max_error_rate),
            "summary",
        )
    ]
    safety = safety_table(flat, labels=labels, max_error_rate=max_error_rate)
    if len(safety) > 1:
        out.append(
            Section(
                "safety",
                "Safety: success and cost",
                "Tasks with a :cost block: TSR and nSG beside the mean cumulative cost per "
                "episode (1 per control step a step term is violated, 10 per end term violated "
                "at the end; normal 95% interval). A policy may succeed and still be unsafe.",
                safety,
                "safety",
            )
        )
    levels = level_table(flat, labels=labels, max_error_rate=max_error_rate)
    if len(levels) > 1:
        out.append(
            Section(
                "levels",
                "Levels L0-L2",
                "Suites run at several structural levels (-L1, -L2; the bare suite is L0): "
                "TSR, nSG and mean cumulative cost per level.",
                levels,
                "levels",
            )
        )
    for axis, title in (("visual", "Visual levels V0-V4"), ("language", "Language levels W0-W4")):
        table = axis_table(flat, axis, max_error_rate=max_error_rate)
        if len(table) > 1:
            out.append(
                Section(
                    f"{axis}_levels",
                    title,
                    "One row per policy and level, one column per suite (runs at other levels "
                    "come from other run directories): TSR % / nSG % (/ mean cumulative cost "
                    "for tasks with a :cost).",
                    table,
                    f"{axis}_levels",
                )
            )
    ablations = ablation_table(named, max_error_rate=max_error_rate)
    if len(ablations) > 1:
        out.append(
            Section(
                "ablations",
                "Instruction ablations",
                "TSR and nSG with the instruction ablated, beside the original instruction; "
                "drop = original - ablated TSR in percentage points (Newcombe 95% interval).",
                ablations,
                "ablations",
            )
        )
    gaps = semantic_gap_table(named, max_error_rate=max_error_rate)
    if len(gaps) > 1:
        out.append(
            Section("semantic_gap", "Semantic gap", SEMANTIC_GAP_NOTE + ".", gaps, "semantic_gap")
        )
    pairs = pair_metrics(records)
    if pairs:
        out.append(
            Section(
                "counterfactual",
                "Counterfactual consistency",
                "Each eval row and its twin (same scene, a question whose answer is another "
                "candidate). consistency: both choices correct; sensitivity: the choice moved; "
                "stuck: the same candidate chosen in both (language-blind: stuck 100%).",
                pair_table(pairs),
                "counterfactual",
            )
        )
    a2a = a2a_metrics(records)
    if a2a:
        out.append(
            Section(
                "act2answer",
                "Act2Answer per category",
                A2A_NOTE + ".",
                a2a_table(a2a),
                "act2answer",
            )
        )
    failures = Section(
        "table5_failures",
        "Table 5: failure analysis",
        "Among episodes that grasped a candidate but failed: the share whose choice was "
        "correct but not placed, and whose first grasp was a wrong target; for policies "
        "that write text, whether the text named a wrong or the correct option, and the "
        "reasoning-following rate (the choice is the option the text names). Wilson 95%.",
        failure_table(failure_analysis(records)),
        "table5_failures",
    )
    original = {label: [m for m in ms if m.variant == "original"] for label, ms in metrics.items()}
    for stem, (title, metric) in TABLES.items():
        if stem == "table6_gsr_tsr":  # the paper's order: Tables 1, 2, 5, 6
            out.append(failures)
        table = paper_table(original, metric, max_error_rate=max_error_rate)
        out.append(Section(stem, title, "", table, stem))
    return out
