"""Table families: one registry says how a suite's tables are built, checked and audited;
a table is audited by its family, never by its choice count."""

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import RsbError
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import A2A_SUITES, ALL_SUITES, Suite
from rsb_mj.tables.families import (
    FAMILIES,
    audit_rows,
    check_tables,
    family_of,
    family_of_rows,
    load_table,
)
from rsb_mj.tables.files import read_table


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


def _tampered_copy(tmp_path, name, old, new):
    """A copy of the shipped manifest and table ``name`` with the first ``old`` replaced."""
    import shutil

    from rsb_mj.tables.files import MANIFEST, episodes_dir

    folder = tmp_path / "episodes"
    folder.mkdir(parents=True)
    shutil.copy(episodes_dir() / MANIFEST, folder / MANIFEST)
    text = (episodes_dir() / name).read_text(encoding="utf-8")
    assert old in text
    (folder / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_verified_table_is_hashed_once_per_process(monkeypatch):
    from rsb_mj.tables import families, files

    calls = []
    real = files.sha256
    monkeypatch.setattr(files, "sha256", lambda data: calls.append(1) or real(data))
    monkeypatch.setattr(files, "_VERIFIED", set())
    first = families.load_table("RSB-Math-10-L1", "train")
    assert families.load_table("RSB-Math-10-L1", "train") == first
    assert len(calls) == 1


def test_a_hand_edited_row_is_refused_with_its_file_and_row(tmp_path):
    from rsb_mj.errors import EpisodeError
    from rsb_mj.tables.families import verify_table

    folder = _tampered_copy(tmp_path, "RSB-Math-4.eval.jsonl", '"correct": "D"', '"correct": "A"')
    with pytest.raises(EpisodeError) as caught:
        verify_table("RSB-Math-4", "eval", folder)
    first, second = str(caught.value).splitlines()
    assert first == f"{folder}/RSB-Math-4.eval.jsonl:1: RSB-Math-4 eval row 0 drifted in correct"
    assert second.startswith(f"{folder}/RSB-Math-4.eval.jsonl: sha256 ")
    assert second.endswith("rebuild it: rsb episodes build RSB-Math-4")
    paired = _tampered_copy(
        tmp_path / "a2a", "A2A-Color.eval.jsonl", '"correct": "B"', '"correct": "A"'
    )
    with pytest.raises(
        EpisodeError, match=r"A2A-Color.eval.jsonl:1: row 0 differs from its item's row in correct"
    ):
        verify_table("A2A-Color", "eval", paired)


def test_rsb_eval_refuses_a_hand_edited_table_before_any_episode(tmp_path, monkeypatch, capsys):
    """Issue 23, item 2: `"correct": "D"` -> `"A"` in a copy; rsb eval exits non-zero, names
    the file and row, and writes nothing."""
    from rsb_mj.tables import episode_source, files

    folder = _tampered_copy(tmp_path, "RSB-Math-4.eval.jsonl", '"correct": "D"', '"correct": "A"')
    monkeypatch.setattr(files, "episodes_dir", lambda: folder)
    episode_source._table.cache_clear()
    out = tmp_path / "run"
    try:
        code = main(
            [
                "eval",
                "--suite",
                "RSB-Math-4",
                "--policy",
                "expert",
                "--episodes",
                "1",
                "--out",
                str(out),
                "--workers",
                "1",
            ]
        )
    finally:
        episode_source._table.cache_clear()
    assert code == 2
    err = capsys.readouterr()
    assert (
        f"{folder}/RSB-Math-4.eval.jsonl:1: RSB-Math-4 eval row 0 drifted in correct"
        in err.out + err.err
    )
    assert not out.exists()
