"""Table families: one registry says how a suite's tables are built, checked and audited;
a table is audited by its family, never by its choice count."""

import pytest

from rsb_mj.cli import main
from rsb_mj.episodes.families import FAMILIES, audit_rows, check_tables, family_of, family_of_rows
from rsb_mj.episodes.table import load_table, read_table
from rsb_mj.errors import RsbError
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import A2A_SUITES, ALL_SUITES, Suite


def test_every_suite_has_a_registered_family():
    assert {family_of(s).name for s in ALL_SUITES} == {"rsb"}
    assert {family_of(s).name for s in A2A_SUITES} == {"a2a"}
    with pytest.raises(RsbError, match=r"unknown table family 'x'; valid choices: rsb, a2a"):
        family_of(Suite("X", "x.bddl", "arithmetic", 4, family="x"))
    assert list(FAMILIES) == ["rsb", "a2a"]


def _two_choice_arithmetic(tmp_path):
    text = (tasks_dir() / "rsb_math_4.bddl").read_text()
    text = text.replace("(:choices 4)", "(:choices 2)")
    text = text.replace("block_a block_b block_c block_d", "block_a block_b")
    for gone in ("block_c", "block_d"):
        text = text.replace(f"\n    (On {gone} table_candidates)", "")
    path = tmp_path / "math_2.bddl"
    path.write_text(text)
    return path


def test_a_two_choice_arithmetic_table_gets_the_rsb_audit_not_the_paired_one(tmp_path, capsys):
    """The latent bug of issue 22: a 2-choice table went to the Act2Answer audit."""
    task = _two_choice_arithmetic(tmp_path)
    assert (
        main(
            [
                "episodes",
                "build",
                str(task),
                "--split",
                "eval",
                "--rows",
                "40",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    rows = read_table(tmp_path / "math_2.eval.jsonl")
    assert {e.choices for e in rows} == {2} and rows[0].suite == str(task)  # no suite
    assert family_of_rows(rows).name == "rsb"
    names = {c.name for c in audit_rows(rows, "math_2", None, None).checks}
    assert {"letter", "position (left to right)", "color", "numeric rank"} <= names
    assert not names & {"side", "side:original", "pairs"}
    capsys.readouterr()
    main(["audit", "--table", str(tmp_path / "math_2.eval.jsonl")])
    out = capsys.readouterr().out
    assert "position (left to right)" in out and "side:original" not in out


def test_an_act2answer_table_given_by_path_gets_the_paired_audit(tmp_path):
    rows = load_table("A2A-Size", "eval")
    names = {c.name for c in audit_rows(rows, "A2A-Size eval").checks}
    assert {"side", "side:original", "side:swapped", "letter", "pairs"} <= names


def test_check_covers_both_families_against_the_one_manifest():
    assert check_tables(["RSB-Math-4-L1", "A2A-Normative"]) == []
