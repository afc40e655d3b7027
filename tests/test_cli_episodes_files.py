"""``rsb episodes build GOAL_SUITE --files FILE...``: refreeze some files' rows, keep the rest."""

from __future__ import annotations

import json

from rsb_mj.cli import main
from rsb_mj.resources import tasks_dir
from rsb_mj.tables.files import read_manifest
from rsb_mj.tables.layouts import task_key

APPLE = (
    tasks_dir()
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
BANANA = APPLE.with_name("pick_the_banana_on_the_table_and_place_it_on_the_plate.bddl")


def test_files_refreezes_the_named_rows_and_keeps_the_others(tmp_path, capsys):
    base = ["episodes", "build", "--out", str(tmp_path), "--rows", "1", "--split", "eval"]
    assert main([*base, "vla-arena", "--files", str(APPLE), task_key(BANANA)]) == 0
    table = tmp_path / "vla-arena.eval.jsonl"
    whole, entry = table.read_bytes(), read_manifest(tmp_path)["vla-arena.eval.jsonl"]
    assert entry["files"] == 2 and entry["rows"] == 2
    lines = whole.splitlines(keepends=True)
    assert [task_key(APPLE) in line.decode() for line in lines] == [True, False]
    table.write_bytes(lines[0])  # the banana's row lost
    capsys.readouterr()
    # a level names vla-arena's table; the banana's row is drawn again, the apple's kept
    assert main([*base, "vla-arena-l0", "--files", task_key(BANANA)]) == 0
    out = capsys.readouterr().out
    assert f"vla-arena: {task_key(BANANA)}: eval 1 rows" in out
    assert task_key(APPLE) not in out
    assert table.read_bytes() == whole
    assert read_manifest(tmp_path)["vla-arena.eval.jsonl"] == entry


def test_a_file_of_two_named_suites_is_drawn_once_into_each(tmp_path, capsys):
    """A tier-A LIBERO file is a row of both ``libero`` and ``libero-layouts``: naming both
    suites gives each table its rows once (the file was drawn, and written, twice)."""
    goal = "libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    base = ["episodes", "build", "--out", str(tmp_path), "--rows", "1", "--split", "eval"]
    assert main([*base, "libero", "libero-layouts", "--files", goal]) == 0
    assert capsys.readouterr().out.count(f": {goal}: eval 1 rows") == 2
    for name in ("libero.eval.jsonl", "libero-layouts.eval.jsonl"):
        lines = (tmp_path / name).read_text().splitlines()
        assert [goal in line for line in lines] == [True]
        assert read_manifest(tmp_path)[name]["rows"] == 1
    rows = [
        json.loads((tmp_path / f"{s}.eval.jsonl").read_text()) for s in ("libero", "libero-layouts")
    ]
    assert [r.pop("suite") for r in rows] == ["libero", "libero-layouts"]
    assert rows[0] == rows[1]  # the same draw, row for row


def test_files_of_another_suite_or_without_a_goal_suite_are_refused(tmp_path, capsys):
    libero = "libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    base = ["episodes", "build", "--out", str(tmp_path), "--rows", "1", "--split", "eval"]
    assert main([*base, "vla-arena", "--files", libero]) == 2
    assert capsys.readouterr().out == (
        f"rsb episodes: error: {libero}: not a task file of vla-arena\n"
    )
    assert main([*base, "RSB-Math-4", "--files", libero]) == 2
    assert capsys.readouterr().out == (
        "rsb episodes: error: --files refreezes files of the goal suites named with it\n"
    )
    assert not (tmp_path / "vla-arena.eval.jsonl").exists()
