"""Tests of ``rsb visibility`` (rsb_mj/cli/visibility.py)."""

from __future__ import annotations

import json

from rsb_mj.cli import main
from rsb_mj.resources import tasks_dir

BOWL = "libero/libero_goal/put_the_bowl_on_the_plate.bddl"


def test_a_goal_file_s_seeds_report_each_object_per_camera(capsys):
    assert main(["visibility", str(tasks_dir() / BOWL), "-n", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "put_the_bowl_on_the_plate.bddl row 0 (seed 0): PASS"
    # named objects first (marked *), then the others; pixels per camera, (cut) at an edge
    assert lines[1].startswith("  * akita_black_bowl_1: head ")
    assert lines[2].startswith("  * plate_1: head ")
    assert ", left_wrist " in lines[1] and ", right_wrist " in lines[1]
    assert lines[-1] == (
        "rule 1 (named objects wholly inside the 224x224 head image, >= 150 px or the tight "
        "camera's floor): 1 of 1 rows pass; 2 of 2 named objects"
    )


def test_json_names_rows_of_a_goal_suite_s_file(capsys):
    source = f"libero-layouts::{BOWL}"
    assert main(["visibility", source, "-n", "2", "--start", "3", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["task"], r["index"], r["passed"]) for r in rows] == [
        (source, 3, True),
        (source, 4, True),
    ]
    head = rows[0]["views"]["head"]
    assert rows[0]["named"] == ["akita_black_bowl_1", "plate_1"]
    assert head["plate_1"]["inside"] is True and head["plate_1"]["pixels"] >= 150
    assert sorted(rows[0]["views"]) == ["head", "left_wrist", "right_wrist"]


def test_a_question_task_or_an_unknown_source_is_a_usage_error(capsys):
    assert main(["visibility", str(tasks_dir() / "rsb_math_4_objects.bddl")]) == 2
    assert "not a goal task (it has a :question; see rsb legibility)" in capsys.readouterr().err
    assert main(["visibility", "no-such-suite"]) == 2
    err = capsys.readouterr().err
    assert "a SOURCE is a goal task file, SUITE::FILE, or a goal suite: libero, libero-" in err
    assert "Traceback" not in err
