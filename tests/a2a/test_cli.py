"""The commands on the Act2Answer suites: episodes check/show, audit, legibility, groups."""

from rsb_mj.cli import main
from rsb_mj.suites import A2A_SUITES, expand_suites


def test_the_a2a_group_expands_to_the_twelve_suites():
    assert expand_suites(["a2a"]) == list(A2A_SUITES)
    assert expand_suites(["A2A-Color", "all"])[:2] == ["A2A-Color", "RSB-Math-4"]


def test_episodes_check_and_show(capsys):
    assert main(["episodes", "check", "A2A-Color", "A2A-Normative"]) == 0
    assert "OK: every table matches its manifest and re-draws byte" in capsys.readouterr().out
    assert main(["episodes", "show", "A2A-Color", "--index", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "A2A-Color eval row 1 (seed 3693855265)"
    assert "plate_a yellow at x=+0.110 y=+0.120" in out  # row 1: the swapped layout


def test_audit_passes_and_lists_the_side_checks(capsys):
    assert main(["audit", "A2A-Counting", "A2A-Quantitative"]) == 0
    out = capsys.readouterr().out
    assert "PASS side:swapped" in out and "PASS probe:larger" in out
    assert out.rstrip().endswith("PASSED: 2 tables")


def test_legibility_reads_the_plates_at_224(capsys):
    assert main(["legibility", "A2A-Size", "-n", "2"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("A2A-Size") and "answer       read 4/4 = 100.00% (2/2 rows" in line
    assert "on 224x224 (policy input); no letters; PASS" in line
