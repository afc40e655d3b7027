"""rsb report: Markdown/CSV tables and PNG plots from run directories."""

import dataclasses

from rsb_mj.cli import main
from rsb_mj.evaluation.records import RECORDS_FILE, append_record
from rsb_mj.evaluation.report import write_report
from rsb_mj.suites import SUITES

from .test_metrics import rec

PNG = b"\x89PNG\r\n\x1a\n"


def write_run(path, policy, success_every):
    """A run folder of four records per suite; every ``success_every``-th one succeeds."""
    path.mkdir()
    for suite in SUITES:
        for i in range(4):
            ok = i % success_every == 0
            r = rec(i, grasped=True, success=ok, choice_letter="A" if ok else "B", suite=suite,
                    policy=policy)  # fmt: skip
            append_record(path / RECORDS_FILE, r)


def test_two_runs_side_by_side_with_tables_csv_and_plots(tmp_path):
    write_run(tmp_path / "a", "expert", 1)
    write_run(tmp_path / "b", "random-grasp", 4)
    out = tmp_path / "report"
    text = write_report([tmp_path / "a", tmp_path / "b"], out)
    assert "## Table 1: TSR (%)" in text and "## Table 2: nSG (%)" in text
    assert "| a:expert       | 100.0 " in text
    t1 = (out / "table1_tsr.csv").read_text().splitlines()
    assert t1[0] == "model," + ",".join(SUITES) + ",Avg"
    assert t1[1] == "a:expert," + ",".join(["100.0"] * 7)
    assert t1[2] == "b:random-grasp," + ",".join(["25.0"] * 7)
    t2 = (out / "table2_nsg.csv").read_text().splitlines()
    assert t2[2].startswith("b:random-grasp,0.0,")
    assert (out / "table6_gsr_tsr.csv").read_text().count("\n") == 3
    assert "### b:random-grasp on RSB-Math-4" in text
    for png in ("rates.png", "confusion_a_expert.png", "confusion_b_random-grasp.png"):
        assert (out / png).read_bytes()[:8] == PNG


def test_cli_prints_the_report_and_writes_beside_one_run(tmp_path, capsys):
    write_run(tmp_path / "a", "expert", 1)
    assert main(["report", str(tmp_path / "a"), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# rsb_mj evaluation report")
    assert (tmp_path / "a" / "report" / "report.md").exists()
    assert not (tmp_path / "a" / "report" / "rates.png").exists()


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
