"""rsb report's tables: the optional ones appear only for runs that have their rows."""

import dataclasses

from rsb_mj.evaluation.records import RECORDS_FILE, append_record
from rsb_mj.evaluation.report import write_report

from .test_metrics import rec
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
