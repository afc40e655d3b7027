"""rsb report's tables: the optional ones appear only for runs that have their rows."""

import csv
import dataclasses
import io
import re

from rsb_mj.evaluation.records import append_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.reporting.report import write_report
from tests.evaluation.test_metrics import rec

from .test_report import write_run


def test_a_run_with_costs_gets_the_safety_table(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for i, cost in enumerate([0.0, 4.0]):
        r = rec(i, grasped=True, success=True, choice_letter="A", suite="RSB-Math-4-L2")
        append_record(run / RECORDS_FILE, dataclasses.replace(r, cost=cost))
    text = write_report([run], tmp_path / "report", plots=False)
    assert "## Safety: success and cost" in text
    assert (tmp_path / "report" / "safety.csv").read_text().splitlines() == [
        "policy,suite,n,TSR %,nSG %,cost",
        'p,RSB-Math-4-L2,2,"100.0 [34.2, 100.0]","100.0 [12.3, 100.0]","2.0 [0.0, 5.9]"',
    ]
    assert (tmp_path / "report" / "summary.csv").read_text().splitlines()[0].endswith(",cost")


def test_a_run_without_costs_has_no_safety_table(tmp_path):
    write_run(tmp_path / "a", "expert", 1)
    text = write_report([tmp_path / "a"], tmp_path / "report", plots=False)
    assert "Safety" not in text and not (tmp_path / "report" / "safety.csv").exists()


def test_suites_run_at_several_levels_get_the_level_table(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for suite in ("RSB-Math-4", "RSB-Math-4-L1"):
        r = rec(0, grasped=True, success=True, choice_letter="A", suite=suite)
        append_record(run / RECORDS_FILE, r)
    text = write_report([run], tmp_path / "report", plots=False)
    assert "## Levels L0-L2" in text
    lines = (tmp_path / "report" / "levels.csv").read_text().splitlines()
    assert [line.split(",")[:4] for line in lines] == [
        ["policy", "suite", "level", "n"],
        ["p", "RSB-Math-4", "L0", "1"],
        ["p", "RSB-Math-4", "L1", "1"],
    ]


def _failing_run(path, policy, failures, *, privileged=False):
    """A run folder of RSB-Math-4 records: one success, then ``failures`` wrong grasps."""
    path.mkdir()
    for i in range(failures + 1):
        r = rec(i, grasped=True, success=i == 0, choice_letter="A" if i == 0 else "B",
                policy=policy, privileged=privileged)  # fmt: skip
        append_record(path / RECORDS_FILE, r)


def test_table5_keeps_two_runs_apart_and_marks_the_privileged(tmp_path):
    # issue 36: Table 5 summed the runs (random-grasp,RSB-Math-4,19 = 17 + 2) and dropped
    # "(privileged)"
    _failing_run(tmp_path / "a", "random-grasp", 17)
    _failing_run(tmp_path / "b", "random-grasp", 2)
    append_record(
        tmp_path / "b" / RECORDS_FILE,
        rec(0, grasped=True, success=False, choice_letter="C", policy="expert", privileged=True),
    )
    out = tmp_path / "report"
    text = write_report([tmp_path / "a", tmp_path / "b"], out, plots=False)
    table5 = csv.reader(io.StringIO((out / "table5_failures.csv").read_text()))
    assert [row[:3] for row in table5] == [
        ["policy", "suite", "grasped, failed"],
        ["a:random-grasp", "RSB-Math-4", "17"],
        ["b:random-grasp", "RSB-Math-4", "2"],
        ["b:expert (privileged)", "RSB-Math-4", "1"],
    ]
    # the paper's order: Tables 1, 2, 5, 6
    titles = [line for line in text.splitlines() if line.startswith("## Table")]
    assert titles == [
        "## Table 1: TSR (%)",
        "## Table 2: nSG (%)",
        "## Table 5: failure analysis",
        "## Table 6: GSR / TSR (%)",
    ]


def test_policy_names_cannot_inject_rows_or_formulas(tmp_path):
    names = ["evil | 1 | 2", "two\nlines | x |", '=HYPERLINK("http://x","y")', "@SUM(1)", "-2+3"]
    run = tmp_path / "run"
    run.mkdir()
    for name in names:
        append_record(run / RECORDS_FILE, rec(0, grasped=True, success=True, choice_letter="A",
                                              policy=name))  # fmt: skip
    out = tmp_path / "report"
    text = write_report([run], out, plots=False)
    summary = text.split("## Per suite\n\n")[1].split("\n\n")[0].splitlines()
    assert len(summary) == 2 + len(names)  # header, rule, one row per policy
    cells = [re.split(r"(?<!\\)\|", line)[1:-1] for line in summary]
    assert {len(row) for row in cells} == {9}  # policy, suite, n, errors, 4 rates, vs chance
    assert summary[2].startswith("| evil \\| 1 \\| 2 ")
    assert summary[3].startswith("| two lines \\| x \\| ")
    assert "### two lines \\| x \\| on RSB-Math-4" not in text  # headings: one line
    assert "### two lines | x | on RSB-Math-4" in text
    rows = list(csv.reader(io.StringIO((out / "summary.csv").read_text())))
    assert [r[0] for r in rows[1:]] == [
        "evil | 1 | 2",
        "two\nlines | x |",
        '\'=HYPERLINK("http://x","y")',
        "'@SUM(1)",
        "'-2+3",
    ]
    assert all(r[1] == "RSB-Math-4" and r[2] == "1" for r in rows[1:])
    assert rows[1][4] == "100.0 [20.7, 100.0]"  # numbers stay numbers
