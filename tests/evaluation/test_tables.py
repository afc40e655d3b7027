"""Tables: cells, the paper's Tables 1/2/6 layout and the Avg rule, Markdown and CSV."""

from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.tables import csv_text, markdown, paper_table, pct, summary_table
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
