"""rsb report: Markdown/CSV tables and PNG plots from run directories."""

import os

from rsb_mj.cli import main
from rsb_mj.evaluation.records import append_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.reporting.report import write_report
from rsb_mj.suites import SUITES
from tests.evaluation.test_metrics import rec

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


def test_a_policy_name_too_long_for_a_file_name_still_gets_its_report(tmp_path, capsys):
    # "File name too long" for confusion_<300 a's>.png, and no report.md for the whole folder
    write_run(tmp_path / "a", "a" * 300, 1)
    assert main(["report", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().out.endswith(f"written to {tmp_path / 'a' / 'report'}/\n")
    made = sorted(p.name for p in (tmp_path / "a" / "report").glob("*.png"))
    assert made == ["confusion_" + "a" * 53 + "_9835fa6bf4.png", "rates.png"]
    assert "| " + "a" * 300 + " |" in (tmp_path / "a" / "report" / "report.md").read_text()


def test_a_run_folder_whose_name_is_not_utf8_gets_its_report_with_the_name_escaped(
    tmp_path, capsys
):
    # a UnicodeEncodeError traceback after the PNGs were written, and no report.md
    run = tmp_path / os.fsdecode(b"out_\xff")
    write_run(run, "expert", 1)
    assert main(["report", str(run), "--html"]) == 0
    shown = f"{tmp_path}/out_\\xff"
    printed = capsys.readouterr()
    assert printed.err == ""
    assert printed.out.endswith(f"written to {shown}/report/ (page: {shown}/report/report.html)\n")
    assert f"Runs: `{shown}`" in (run / "report" / "report.md").read_text(encoding="utf-8")
    (run / "report" / "report.html").read_text(encoding="utf-8")  # UTF-8 throughout
    assert (run / "report" / "rates.png").read_bytes()[:8] == PNG


def test_a_goal_run_is_reported_per_libero_and_vla_arena_suite(tmp_path, capsys):
    """A real run of the expert on one row of a libero-goal file, a libero_10 file and a
    VLA-Arena long_horizon file (row sources: the tables' owners, libero and vla-arena):
    the report's source-suite table names each file's own suite (libero-goal, libero-10,
    long-horizon), in the sources' order, with its tiers; the CSV holds the same rows."""
    sources = [
        "vla-arena::vla_arena/long_horizon/level_0/open_the_top_layer_of_the_cabinet.bddl",
        "libero::libero/libero_goal/open_the_middle_drawer_of_the_cabinet.bddl",
        "libero::libero/libero_10/LIVING_ROOM_SCENE2_put_both_the_alphabet_soup_and_the_tomato_"
        "sauce_in_the_basket.bddl",
    ]
    run = tmp_path / "run"
    argv = ["eval", *sources, "--policy", "expert", "-n", "1", "--out", str(run), "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| source suite | files | tiers | policy |" in printed  # rsb eval's summary too
    assert main(["report", str(run), "--no-plots"]) == 0
    capsys.readouterr()
    text = (run / "report" / "report.md").read_text()
    assert "## Goal tasks: success per LIBERO / VLA-Arena suite" in text
    section = text.split("## Goal tasks: success per LIBERO / VLA-Arena suite", 1)[1]
    assert [line.split("|")[1].strip() for line in section.splitlines() if "expert" in line] == [
        "libero-goal", "libero-10", "long-horizon"
    ]  # fmt: skip
    rows = (run / "report" / "goal_source_suites.csv").read_text().splitlines()
    assert rows[0] == "source suite,files,tiers,policy,success,rate % [95% CI],cost/episode,errors"
    assert rows[1] == 'libero-goal,1,B2,expert,1/1,"100 [21, 100]",-,0'
    assert rows[2] == 'libero-10,1,A0,expert,1/1,"100 [21, 100]",-,0'
    assert rows[3] == 'long-horizon,1,B2,expert,1/1,"100 [21, 100]",-,0'
    suites = (run / "report" / "goal_suites.csv").read_text().splitlines()
    assert [r.split(",")[:2] for r in suites[1:]] == [["vla-arena", "1"], ["libero", "2"]]
