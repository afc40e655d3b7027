"""``rsb eval FILE.bddl`` on goal task files."""

from __future__ import annotations

import json
from pathlib import Path

from rsb_mj.cli import main

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    SUITES
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)


def test_eval_runs_the_expert_and_prints_success_with_wilson(tmp_path, capsys):
    rc = main(["eval", str(APPLE), "--policy", "expert", "--episodes", "1", "--out",
               str(tmp_path / "run")])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0
    assert "| pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl | A0 | expert | 1/1 " \
        "| 100 [21, 100] | - |" in out  # fmt: skip
    assert "LIBERO/VLA-Arena layouts on Aloha" in out
    (line,) = (tmp_path / "run" / "goal_episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert (record["success"], record["seed"], record["source"]) == (True, 0, "vla_arena")


def test_eval_on_an_unbuildable_file_lists_what_is_missing_and_the_tier(capsys):
    path = SUITES / "libero/libero_goal/turn_on_the_stove.bddl"
    rc = main(["eval", str(path), "--policy", "expert", "--episodes", "1"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{path}: rsb_mj cannot build this scene (tier B2):" in err
    assert "Traceback" not in err


def test_a_question_run_still_needs_out(capsys):
    rc = main(["eval", "--suite", "RSB-Math-4", "--policy", "expert", "--episodes", "1"])
    assert rc == 2
    assert "--out DIR is required" in capsys.readouterr().err
