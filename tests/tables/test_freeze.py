"""``rsb episodes build``: one entry point freezes every kind of table the same way.

Tables of a question suite, its level and a goal suite's task file, frozen together into a
temporary folder, are the shipped rows (a prefix of the shipped question tables, the first
rows of the file in the goal table), listed in one manifest with each kind's entry; the
shipped tables are not touched.
"""

from __future__ import annotations

import pytest

from rsb_mj.env.settled_layouts import freeze_file
from rsb_mj.errors import EpisodeError
from rsb_mj.resources import tasks_dir
from rsb_mj.tables.files import episodes_dir, read_manifest, row_order, sha256
from rsb_mj.tables.freeze import freeze_tables
from rsb_mj.tables.layouts import GOAL_FAMILY, file_rows, task_key

APPLE = (
    tasks_dir()
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)


def test_one_entry_point_freezes_question_and_goal_rows_as_shipped(tmp_path):
    shipped_manifest = (episodes_dir() / "manifest.json").read_bytes()
    logged: list[str] = []
    results = freeze_tables(
        ["RSB-Math-4", "RSB-Math-4-L1", "vla-arena"], ("eval",), tmp_path, rows=2,
        draw_layouts=freeze_file, files=[APPLE], log=logged.append,
    )  # fmt: skip
    assert [(r.suite, r.split, r.rows, r.changed) for r in results] == [
        ("RSB-Math-4", "eval", 2, True),
        ("RSB-Math-4-L1", "eval", 2, True),
        ("vla-arena", "eval", 2, True),
    ]
    assert logged == [f"vla-arena: {task_key(APPLE)}: eval 2 rows"]
    for name in ("RSB-Math-4.eval.jsonl", "RSB-Math-4-L1.eval.jsonl"):
        shipped = (episodes_dir() / name).read_bytes().splitlines(keepends=True)
        assert (tmp_path / name).read_bytes() == b"".join(shipped[:2]), name
    goal = (tmp_path / "vla-arena.eval.jsonl").read_bytes()
    assert goal.decode().splitlines() == [
        r.dumps() for r in file_rows("vla-arena", "eval", APPLE)[:2]
    ]
    manifest = read_manifest(tmp_path)
    assert manifest["RSB-Math-4.eval.jsonl"] == {
        "suite": "RSB-Math-4",
        "split": "eval",
        "rows": 2,
        "sha256": sha256((tmp_path / "RSB-Math-4.eval.jsonl").read_bytes()),
    }
    entry = manifest["vla-arena.eval.jsonl"]
    assert list(entry)[:5] == ["suite", "split", "rows", "sha256", "family"]
    assert (entry["family"], entry["files"], entry["rows_per_file"], entry["short"]) == (
        GOAL_FAMILY, 1, 2, {},
    )  # fmt: skip
    assert entry["sha256"] == sha256(goal)
    # frozen again: the same bytes, nothing rewritten; the shipped folder untouched
    again = freeze_tables(
        ["RSB-Math-4", "vla-arena"], ("eval",), tmp_path, rows=2, draw_layouts=freeze_file,
        files=[APPLE], log=logged.append,
    )  # fmt: skip
    assert [r.changed for r in again] == [False, False]
    assert (episodes_dir() / "manifest.json").read_bytes() == shipped_manifest


def test_every_shipped_table_is_in_the_one_row_order():
    from rsb_mj.tables.files import read_table

    for name, entry in read_manifest().items():
        rows = read_table(episodes_dir() / name, goal=entry.get("family") == GOAL_FAMILY)
        assert sorted(rows, key=row_order) == rows, name


def test_a_goal_suite_needs_the_envs_draw(tmp_path):
    with pytest.raises(EpisodeError, match="vla-arena: a goal suite's rows are drawn in the env"):
        freeze_tables(["vla-arena"], ("eval",), tmp_path, rows=1, files=[APPLE])
    assert not (tmp_path / "manifest.json").exists()
