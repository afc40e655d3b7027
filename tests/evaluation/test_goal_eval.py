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


def test_failures_are_classified_by_the_phase_and_the_reason():
    from rsb_mj.evaluation.goal_eval import failure_class

    assert failure_class("") == ""
    assert failure_class("reset: x.bddl: seed 0: no valid layout in 10 draws (...)") == "reset"
    assert failure_class("lift: IK for site 'left/gripper': target [...] unreachable") == "reach"
    assert failure_class("carry: no reachable pose above the zone: ...") == "reach"
    assert failure_class("approach: object 'bowl_1' is 125 mm wide at its narrowest") == "grasp"
    assert failure_class("lift: object 'bowl_1' not held: it rose 3 mm with the gripper") == "grasp"
    assert failure_class("expert done, goal not held (On a b: False)") == "placement"
    assert failure_class("step limit") == "policy"


BASKET = (
    SUITES
    / "libero/libero_90"
    / "LIVING_ROOM_SCENE2_pick_up_the_butter_and_put_it_in_the_basket.bddl"
)
ASSETS = Path(__file__).resolve().parents[1] / "data" / "libero_assets"


def test_records_name_the_object_source_and_the_summary_refuses_to_pool_sources(
    tmp_path, capsys, monkeypatch
):
    """--assets DIR builds the folder's originals (here the basket of tests/data's folder):
    records say ``assets:<fingerprint>``; the shipped run says ``standins``; a summary of
    both is refused."""
    import dataclasses

    import pytest

    from rsb_mj.errors import EvalError
    from rsb_mj.evaluation.goal_eval import GoalRecord, summary

    monkeypatch.delenv("RSB_MJ_ASSETS", raising=False)
    runs = {}
    for name, extra in (("shipped", []), ("assets", ["--assets", str(ASSETS)])):
        rc = main(["eval", str(BASKET), "--policy", "expert", "--episodes", "1",
                   "--max-steps", "1", "--out", str(tmp_path / name), *extra])  # fmt: skip
        assert rc == 0, capsys.readouterr().err
        (line,) = (tmp_path / name / "goal_episodes.jsonl").read_text().splitlines()
        runs[name] = json.loads(line)
    assert (runs["shipped"]["objects"], runs["shipped"]["objects_fingerprint"]) == ("standins", "")
    fingerprint = runs["assets"]["objects_fingerprint"]
    assert len(fingerprint) == 64 and runs["assets"]["objects"] == f"assets:{fingerprint[:16]}"
    records = [GoalRecord(**r) for r in runs.values()]
    refusal = (
        r"^these records ran on different objects and are not pooled: "
        r"assets:[0-9a-f]{16}, standins \(standins: the shipped stand-ins"
    )
    with pytest.raises(EvalError, match=refusal):
        summary(records)
    same = summary([records[0], dataclasses.replace(records[0], seed=1)])
    assert "| expert | 0/2 |" in same  # one step: no success; one source: pooled
    rc = main(["eval", str(BASKET), "--policy", "expert", "--episodes", "1",
               "--assets", str(tmp_path / "nowhere")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "--assets: " in err and "is not a folder" in err
    assert "Traceback" not in err


def test_eval_levels_reach_the_records(tmp_path, capsys):
    """``--visual-level``/``--language-level`` on a goal file: the records carry the levels
    and the instruction the policy was given; the expert's episode is that of level 0."""
    common = [str(APPLE), "--policy", "expert", "--episodes", "1"]
    assert main(["eval", *common, "--out", str(tmp_path / "w0")]) == 0
    assert main(["eval", *common, "--visual-level", "3", "--language-level", "2",
                 "--out", str(tmp_path / "w2")]) == 0  # fmt: skip
    capsys.readouterr()
    (plain,) = [
        json.loads(x) for x in (tmp_path / "w0/goal_episodes.jsonl").read_text().split("\n") if x
    ]
    (moved,) = [
        json.loads(x) for x in (tmp_path / "w2/goal_episodes.jsonl").read_text().split("\n") if x
    ]
    assert (plain["visual_level"], plain["language_level"]) == (0, 0)
    assert plain["instruction"] == "Pick the apple on the table and place it on the plate"
    assert (moved["visual_level"], moved["language_level"]) == (3, 2)
    assert (
        moved["instruction"] == "Pick the apple on the piece of furniture and move it on the plate"
    )
    assert (moved["success"], moved["steps"]) == (plain["success"], plain["steps"])
