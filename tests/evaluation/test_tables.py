"""Tables: cells, the paper's Tables 1/2/6 layout and the Avg rule, Markdown and CSV."""

import dataclasses
import math

import pytest

from rsb_mj.evaluation.metrics import CostMean, summarize
from rsb_mj.evaluation.tables import (
    cost_cell,
    csv_text,
    level_table,
    markdown,
    paper_table,
    pct,
    safety_table,
    split_level,
    summary_table,
)
from rsb_mj.suites import SUITES

from .test_metrics import rec


def _all_suites(policy, success):
    return [
        rec(i, grasped=True, success=success, choice_letter="A", suite=s, policy=policy)
        for s in SUITES
        for i in range(2)
    ]


def test_pct_and_summary_cells():
    assert (pct(0.4567), pct(None)) == ("45.7", "-")
    rows = summary_table(summarize([rec(0, grasped=True, success=True, choice_letter="A")]))
    assert rows[0] == [
        "policy", "suite", "n", "errors", "GSR %", "TSR %", "selection %", "nSG %", "vs chance",
    ]  # fmt: skip
    assert rows[1] == [
        "p", "RSB-Math-4", "1", "0", "100.0 [20.7, 100.0]", "100.0 [20.7, 100.0]",
        "100.0 [20.7, 100.0]", "100.0 [-5.8, 100.0]", "within",
    ]  # fmt: skip


def test_privileged_rows_are_marked_and_rows_with_too_many_errors_withheld():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A", policy="expert", privileged=True),
        rec(0, grasped=False, success=False, policy="mine"),
        rec(1, grasped=False, success=False, policy="mine", error="InfraError: timeout"),
    ]
    rows = summary_table(summarize(records))
    assert rows[1][:4] == ["expert (privileged)", "RSB-Math-4", "1", "0"]
    assert rows[2] == ["mine", "RSB-Math-4", "1", "1", *["withheld"] * 5]
    rows = summary_table(summarize(records), max_error_rate=None)
    assert rows[2][4] == "0.0 [0.0, 79.3]"
    t1 = paper_table({"expert": summarize(records)[:1], "mine": summarize(records)[1:]}, "tsr")
    assert (t1[1][:2], t1[2][:2]) == (["expert (privileged)", "100.0"], ["mine", "withheld"])


def test_table1_has_suites_in_paper_order_and_an_average_only_when_all_six_are_there():
    runs = {
        "good": summarize(_all_suites("good", True)),
        "part": summarize(_all_suites("part", False)[:2]),
    }
    t1 = paper_table(runs, "tsr")
    assert t1[0] == ["model", *SUITES, "Avg"]
    assert t1[1] == ["good", *["100.0"] * 6, "100.0"]
    assert t1[2] == ["part", "0.0", "-", "-", "-", "-", "-", "-"]
    t2 = paper_table(runs, "nsg")
    assert t2[2][1] == "-33.3"  # grasped A, correct A, not placed: TSR 0, GSR 1
    t6 = paper_table(runs, "gsr_tsr")
    assert t6[0][1:3] == ["RSB-Math-4 GSR", "RSB-Math-4 TSR"] and t6[0][-2:] == [
        "Avg GSR",
        "Avg TSR",
    ]
    assert t6[1][-2:] == ["100.0", "100.0"]


def test_markdown_and_csv_rendering():
    table = [["a", "bb"], ["1", "2"]]
    assert markdown(table) == "| a | bb |\n|---|----|\n| 1 | 2  |"
    assert csv_text(table) == "a,bb\n1,2\n"


def _costly(index, cost, **kw):
    return dataclasses.replace(rec(index, **kw), cost=cost)


def test_cost_mean_and_its_normal_interval():
    cost = CostMean.of([1.0, 2.0, 3.0])
    half = 1.96 / math.sqrt(3)
    assert (cost.n, cost.mean) == (3, 2.0)
    assert cost.interval == pytest.approx((2.0 - half, 2.0 + half))
    assert CostMean.of([0.0, 0.0, 4.0]).interval[0] == 0.0  # clipped at 0
    assert CostMean.of([5.0]) == CostMean(1, 5.0, None)
    assert (cost_cell(cost), cost_cell(CostMean.of([5.0])), cost_cell(None)) == (
        "2.0 [0.9, 3.1]",
        "5.0",
        "-",
    )


def test_summary_has_a_cost_column_only_when_a_task_has_a_cost():
    plain = summarize([rec(0, grasped=True, success=True, choice_letter="A")])
    assert summary_table(plain)[0][-1] == "vs chance"
    records = [
        _costly(i, c, grasped=True, success=True, choice_letter="A", suite="safe")
        for i, c in enumerate([1.0, 2.0, 3.0])
    ] + [rec(0, grasped=True, success=True, choice_letter="A")]
    table = summary_table(summarize(records))
    assert table[0][-2:] == ["vs chance", "cost"]
    assert [row[-1] for row in table[1:]] == ["2.0 [0.9, 3.1]", "-"]


def test_error_records_carry_no_cost_into_the_mean():
    records = [
        _costly(0, 4.0, grasped=True, success=True, choice_letter="A"),
        _costly(1, 10.0, grasped=False, success=False, error="boom"),
    ]
    (m,) = summarize(records)
    assert m.cost == CostMean(1, 4.0, None)


def test_safety_table_puts_tsr_nsg_and_cost_side_by_side():
    records = [
        _costly(0, 0.0, grasped=True, success=True, choice_letter="A", suite="RSB-Math-4-L2"),
        _costly(1, 12.0, grasped=True, success=False, choice_letter="B", suite="RSB-Math-4-L2"),
        rec(0, grasped=True, success=True, choice_letter="A"),
    ]
    assert safety_table(summarize(records)) == [
        ["policy", "suite", "n", "TSR %", "nSG %", "cost"],
        [
            "p",
            "RSB-Math-4-L2",
            "2",
            "50.0 [9.5, 90.5]",
            "33.3 [-20.7, 87.4]",
            "6.0 [0.0, 17.8]",
        ],
    ]


def test_split_level_reads_the_suffix():
    assert split_level("RSB-Math-4-L2") == ("RSB-Math-4", 2)
    assert split_level("RSB-Math-4") == ("RSB-Math-4", 0)
    assert split_level("tasks/x-L1.bddl") == ("tasks/x-L1.bddl", 0)


def test_level_table_puts_the_levels_of_a_suite_side_by_side():
    records = [
        _costly(0, 0.0, grasped=True, success=True, choice_letter="A", suite="RSB-Math-4-L2"),
        _costly(1, 12.0, grasped=True, success=False, choice_letter="B", suite="RSB-Math-4-L2"),
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(0, grasped=True, success=True, choice_letter="A", suite="RSB-General-4"),
    ]
    assert level_table(summarize(records)) == [
        ["policy", "suite", "level", "n", "TSR %", "nSG %", "cost"],
        ["p", "RSB-Math-4", "L0", "1", "100.0 [20.7, 100.0]", "100.0 [-5.8, 100.0]", "-"],
        [
            "p",
            "RSB-Math-4",
            "L2",
            "2",
            "50.0 [9.5, 90.5]",
            "33.3 [-20.7, 87.4]",
            "6.0 [0.0, 17.8]",
        ],
    ]
    assert level_table(summarize(records[2:])) == [
        ["policy", "suite", "level", "n", "TSR %", "nSG %", "cost"]
    ]


def test_the_terminal_table_fits_100_columns_with_its_jargon_in_one_line():
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.evaluation.tables import TERMINAL_LEGEND, TERMINAL_NOTE, plain, terminal_table
    from rsb_mj.suites import SUITES

    from .test_metrics import rec

    records = [
        rec(
            i,
            grasped=True,
            success=ok,
            choice_letter="A" if ok else "B",
            suite=suite,
            policy=policy,
            privileged=policy == "expert",
        )
        for suite in SUITES
        for policy, every in (("expert", 1), ("random-grasp", 4))
        for i in range(20)
        for ok in [i % every == 0]
    ]
    text = plain(terminal_table(summarize(records)))
    lines = [*text.splitlines(), TERMINAL_LEGEND, TERMINAL_NOTE]
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    assert lines[0].split() == ["policy", "suite", "n", "err", "GSR", "%", "TSR", "%", "nSG", "%",
                                "vs", "chance"]  # fmt: skip
    assert lines[2] == (
        "expert (privileged)  RSB-Math-4       20    0  100.0  100.0 [84,100]  100.0 [79,100]"
        "  above"
    )
    assert "random-grasp         RSB-Math-4       20    0  100.0    25.0 [11,47]" in text
    assert "GSR" in TERMINAL_LEGEND and "TSR" in TERMINAL_LEGEND and "nSG" in TERMINAL_LEGEND
