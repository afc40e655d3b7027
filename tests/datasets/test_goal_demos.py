"""``rsb demos`` on goal task files: the goal expert recorded in the demo format, resumable,
exported to LeRobot alone and beside question demonstrations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from rsb_mj.cli import main
from rsb_mj.datasets.demo_file import file_sha256, goal_demo_filename, read_demo
from rsb_mj.datasets.lerobot import ExportError, export_lerobot
from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.errors import ExpertError
from rsb_mj.scene.framing import GOAL_HEAD_FOVY
from rsb_mj.suites import GOAL_SUITES, GoalSuite

APPLE = (
    Path(__file__).resolve().parents[1]
    / "data/bddl_suites/vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
LANGUAGE = "Pick the apple on the table and place it on the plate"
#: The size of the synthetic question demonstrations (tests/datasets/conftest.py).
SMALL = ["--cameras", "head", "--width", "64", "--height", "48", "--no-progress"]


@pytest.fixture(scope="module")
def goal_demos(tmp_path_factory):
    """Seed 0 of the apple file, recorded by ``rsb demos FILE -n 1`` (head camera, 64x48)."""
    out = tmp_path_factory.mktemp("goal_demos")
    assert main(["demos", str(APPLE), "-n", "1", "-o", str(out), *SMALL]) == 0
    return out


def test_the_file_holds_the_expert_episode_with_the_language_as_instruction(goal_demos):
    name = goal_demo_filename(APPLE, 0)
    assert name == f"episode_{APPLE.stem}-{file_sha256(APPLE)[:8]}_s000000.hdf5"
    assert [p.name for p in goal_demos.glob("*.hdf5")] == [name]
    demo = read_demo(goal_demos / name)
    a = demo.attrs
    assert (a["kind"], a["instruction"], a["prompt"], a["seed"]) == ("goal", LANGUAGE, LANGUAGE, 0)
    assert (bool(a["success"]), a["failure"], a["objects"]) == (True, "", "standins")
    assert a["task_sha256"] == file_sha256(APPLE) and a["task"] == str(APPLE)
    assert "question" not in a and "options" not in a
    episode = json.loads(a["episode"])
    keys = ("kind", "seed", "tier", "source", "suite", "language_level")
    assert {k: episode[k] for k in keys} == {
        "kind": "goal", "seed": 0, "tier": "A0", "source": "vla_arena", "suite": "",
        "language_level": 0,
    }  # fmt: skip
    assert sorted(episode["layout"]) == ["apple_1", "plate_1"]
    # the head camera framed for the task (rsb_mj.scene.framing), as the records carry it
    env = GoalEnv(APPLE, cameras=())
    try:
        assert episode["head_camera"] == env.head_camera
    finally:
        env.close()
    assert episode["head_camera"]["fovy"] == GOAL_HEAD_FOVY
    n = int(a["num_frames"])
    assert demo.states.shape == demo.actions.shape == (n, 14) and n > 20
    assert list(demo.images) == ["head"] and demo.images["head"][0].shape == (48, 64, 3)
    with pytest.raises(ExpertError, match="goal task's demonstration has no question episode"):
        _ = demo.episode


def test_a_rerun_keeps_the_good_file_and_rewrites_a_damaged_one(goal_demos, tmp_path, capsys):
    out = tmp_path / "d"
    shutil.copytree(goal_demos, out)
    name = goal_demo_filename(APPLE, 0)
    before = (out / name).read_bytes()
    assert main(["demos", str(APPLE), "-n", "1", "-o", str(out), *SMALL]) == 0
    assert "(0 written, 1 already there, 0 with expert failures)" in capsys.readouterr().out
    # another step limit would keep the file recorded with the default one: refused
    assert main(["demos", str(APPLE), "-n", "1", "-o", str(out), "--max-steps", "9", *SMALL]) == 2
    assert capsys.readouterr().err == (
        f"rsb demos: error: --max-steps 9: {out} holds demonstrations recorded with "
        "--max-steps (not given) (demos.json); rerun with that to resume it, or give another "
        "--out\n"
    )
    # question demonstrations share the folder (files named apart), under their own settings
    assert main(["demos", "RSB-Math-4", "-n", "1", "-o", str(out), *SMALL]) == 0
    held = json.loads((out / "demos.json").read_text())
    assert (sorted(held), held["goal"]["--max-steps"], held["question"]["suite"]) == (
        ["goal", "question"], None, "RSB-Math-4"
    )  # fmt: skip
    capsys.readouterr()
    (out / name).write_bytes(before[:4000])
    assert main(["demos", str(APPLE), "-n", "1", "-o", str(out), *SMALL]) == 0
    printed = capsys.readouterr().out
    assert f"rewritten: {out / name}: unreadable demonstration" in printed
    assert "(1 written, 0 already there, 1 damaged rewritten, 0 with expert failures)" in printed
    assert (out / name).read_bytes() == before  # same seed, same bytes


def test_export_of_goal_and_question_demos_keeps_each_instruction(
    goal_demos, synthetic_demos, tmp_path
):
    mixed = tmp_path / "mixed"
    shutil.copytree(goal_demos, mixed)
    for path in sorted(synthetic_demos.glob("episode_*.hdf5")):
        shutil.copy(path, mixed / path.name)
    summary = export_lerobot(mixed, tmp_path / "ds", cameras=("head",))
    assert (summary.episodes, summary.tasks) == (3, 3)  # 2 question successes + the goal one
    tasks = pq.read_table(tmp_path / "ds/meta/tasks.parquet").to_pydict()
    assert tasks["__index_level_0__"][tasks["task_index"].index(2)] == LANGUAGE
    meta = pq.read_table(tmp_path / "ds/meta/episodes/chunk-000/file-000.parquet").to_pylist()
    goal = [m for m in meta if m["rsb_source"] == goal_demo_filename(APPLE, 0)]
    assert [m["tasks"] for m in goal] == [[LANGUAGE]]
    assert json.loads(goal[0]["rsb_episode"])["kind"] == "goal"
    # the LeRobot metadata names the head camera's pose of the goal episode
    assert json.loads(goal[0]["rsb_episode"])["head_camera"]["fovy"] == GOAL_HEAD_FOVY
    assert goal[0]["rsb_success"] is True


def test_failed_expert_episodes_are_written_counted_and_not_exported(tmp_path, capsys):
    """A 5-step limit: the episode ends in the expert's failure; its file says so, the run
    exits 1, and the export finds no successful episode."""
    out = tmp_path / "short"
    args = ["demos", str(APPLE), "-n", "1", "-o", str(out), "--max-steps", "5"]
    assert main([*args, "--language-level", "2", *SMALL]) == 1
    printed = capsys.readouterr().out
    assert f"{goal_demo_filename(APPLE, 0)}: expert failed: " in printed
    assert "(1 written, 0 already there, 1 with expert failures)" in printed
    demo = read_demo(out / goal_demo_filename(APPLE, 0), images=False)
    assert not demo.attrs["success"] and demo.attrs["failure"]
    assert len(demo.actions) == 5
    # the perturbed instruction is what the policy was given, and what is recorded
    assert demo.attrs["instruction"] == (
        "Pick the apple on the piece of furniture and move it on the plate"
    )
    assert json.loads(demo.attrs["episode"])["language_level"] == 2
    with pytest.raises(ExportError, match="no successful demonstrations to export"):
        export_lerobot(out, tmp_path / "ds", cameras=("head",))


def test_goal_and_question_inputs_are_not_mixed_and_question_flags_are_refused(tmp_path, capsys):
    out = str(tmp_path / "x")
    assert main(["demos", "RSB-Math-4", str(APPLE), "-n", "1", "-o", out]) == 2
    assert "not goal: RSB-Math-4" in capsys.readouterr().err
    assert main(["demos", str(APPLE), "--split", "eval", "-n", "1", "-o", out]) == 2
    assert "--split and --cot do not apply to goal tasks" in capsys.readouterr().err
    assert main(["demos", "RSB-Math-4", "--max-steps", "9", "-n", "1", "-o", out]) == 2
    assert "--assets and --max-steps apply to goal tasks" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_bad_flags_are_refused_before_any_episode(tmp_path, capsys):
    # each was accepted: --max-steps 0 ran without a limit, a missing --assets or a 10^5 px
    # image failed every episode (exit 3, "rerun to retry"), and a goal file with a syntax
    # error or an unknown suite with --max-steps was told that --max-steps is for goal tasks
    out = tmp_path / "x"
    bad = tmp_path / "bad.bddl"
    bad.write_text(APPLE.read_text().replace("(:goal", "(:goal ((", 1))
    cases = [
        (["--max-steps", "0"], "--max-steps must be at least 1"),
        (["--max-steps", "-5"], "--max-steps must be at least 1"),
        (["--assets", str(tmp_path / "none")],
         f"--assets: {tmp_path / 'none'} is not a folder (a LIBERO / VLA-Arena assets/ folder)"),
        (["--height", "100000"],
         "image size 320x100000: width and height must be 1..4096 pixels"),
    ]  # fmt: skip
    for extra, message in cases:
        assert main(["demos", str(APPLE), "-n", "1", "-o", str(out), *extra]) == 2
        assert capsys.readouterr().err == f"rsb demos: error: {message}\n"
    assert main(["demos", str(bad), "--max-steps", "9", "-n", "1", "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"rsb demos: error: {bad}:")
    assert main(["demos", "--suite", "vla_arena", "--max-steps", "9", "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith("rsb demos: error: unknown suite 'vla_arena'; ")
    assert not out.exists()


def test_a_goal_suite_is_recorded_file_by_file(tmp_path, monkeypatch, capsys):
    """``rsb demos --suite vla-arena-l0 --format lerobot``, the suite narrowed to one shipped
    file: its episodes are the rows of the file's frozen train table and carry the suite's
    name, and the LeRobot dataset is made beside them."""
    from rsb_mj.tables.layouts import file_rows

    pattern = "long_horizon/level_0/pick_up_the_orange*"
    narrow = GoalSuite("vla-arena-l0", "vla_arena", pattern, table="vla-arena")
    monkeypatch.setitem(GOAL_SUITES, "vla-arena-l0", narrow)
    (task,) = narrow.files
    row = file_rows("vla-arena", "train", task)[0]
    out = tmp_path / "suite"
    args = ["demos", "--suite", "vla-arena-l0", "-n", "1", "-o", str(out), "--cameras", ""]
    assert main([*args, "--no-progress", "--format", "lerobot"]) == 0
    printed = capsys.readouterr().out
    assert "rsb demos: 1 goal task files x 1 seeds from 0: 1 episodes" in printed
    assert f"LeRobot v3.0 dataset of 1 successful episodes in {out / 'lerobot'}" in printed
    info = json.loads((out / "lerobot/meta/info.json").read_text())
    assert (info["total_episodes"], info["total_tasks"]) == (1, 1)
    demo = read_demo(out / goal_demo_filename(task, row.seed))
    assert (demo.attrs["suite"], demo.attrs["instruction"], bool(demo.attrs["success"])) == (
        "vla-arena-l0", "Pick up the orange and put it in the box", True,
    )  # fmt: skip
    assert (demo.attrs["split"], demo.attrs["index"], demo.attrs["seed"]) == ("train", 0, row.seed)
    episode = json.loads(demo.attrs["episode"])
    assert episode["suite"] == "vla-arena-l0" and episode["seed"] == row.seed >= 100_000
    assert episode["layout"] == {k: [round(v, 6) for v in p] for k, p in row.layout.items()}


def test_the_one_writer_records_one_kind_at_a_time(tmp_path):
    """``write_demos`` takes goal sources together, a question source alone: question files
    are named by row, so two question sources (or one beside goal files) would collide."""
    from rsb_mj.datasets.demos import write_demos

    out = tmp_path / "x"
    cases = [
        (["RSB-Math-4", str(APPLE)], {},
         "question and goal task sources are recorded on their own"),
        (["RSB-Math-4", "RSB-Math-10"], {},
         "question demonstrations are named by row: give one suite or task file, not "
         "RSB-Math-4, RSB-Math-10"),
        (str(APPLE), {"cot": True}, "--cot: goal tasks have no rationale"),
    ]  # fmt: skip
    for sources, extra, message in cases:
        with pytest.raises(ExpertError) as exc:
            write_demos(sources, "train", 1, out, cameras=(), progress=False, **extra)
        assert str(exc.value) == message
    assert not out.exists()


def test_a_tier_b_suite_file_is_recorded_with_its_fixture_joints_and_exported(
    tmp_path, monkeypatch, capsys
):
    """``rsb demos --suite libero-goal -n 1``, the suite narrowed to its tier-B file "open
    the middle drawer", then ``rsb export-lerobot``: the expert's episode on the file's first
    train row, the cabinet's four joints before each action (the middle drawer pulled from
    closed past LIBERO's open threshold, the others still), the cabinet's move named in the
    episode, and the dataset of its frames with the instruction as its task and the four
    joints as each frame's ``observation.environment_state``."""
    from rsb_mj.tables.layouts import file_rows

    narrow = GoalSuite(
        "libero-goal", "libero", "libero_goal/open_the_middle_drawer*", table="libero"
    )
    monkeypatch.setitem(GOAL_SUITES, "libero-goal", narrow)
    (task,) = narrow.files
    row = file_rows("libero", "train", task)[0]
    out = tmp_path / "demos"
    assert main(["demos", "--suite", "libero-goal", "-n", "1", "-o", str(out), *SMALL]) == 0
    assert "1 episodes in" in capsys.readouterr().out
    demo = read_demo(out / goal_demo_filename(task, row.seed))
    a = demo.attrs
    instruction = "Open the middle layer of the drawer"
    assert (a["suite"], a["instruction"], bool(a["success"]), a["seed"]) == (
        "libero-goal", instruction, True, row.seed
    )  # fmt: skip
    n = int(a["num_frames"])
    assert demo.states.shape == (n, 14) and len(demo.images["head"]) == n and n > 50
    names = json.loads(a["fixture_joints"])
    assert names == ["wooden_cabinet_1/top_level", "wooden_cabinet_1/middle_level",
                     "wooden_cabinet_1/bottom_level", "flat_stove_1/button"]  # fmt: skip
    assert demo.fixture_joints.shape == (n, 4)
    middle = demo.fixture_joints[:, 1]
    assert abs(middle[0]) < 0.005 and middle[-1] < -0.14  # closed, then pulled out 14+ cm
    assert abs(demo.fixture_joints[:, [0, 2, 3]]).max() < 0.005
    episode = json.loads(a["episode"])
    assert (episode["tier"], episode["suite"]) == ("B2", "libero-goal")
    assert episode["layout_changes"] == [
        "wooden_cabinet_1: moved along x from -0.240 to -0.050 m (toward the table's centre; "
        "its front faces the right arm across the table)"
    ]
    assert main(["export-lerobot", str(out), "-o", str(tmp_path / "ds"), "--cameras", "head"]) == 0
    assert "1 episodes" in capsys.readouterr().out
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    assert (info["total_episodes"], info["total_frames"], info["total_tasks"]) == (1, n, 1)
    tasks = pq.read_table(tmp_path / "ds/meta/tasks.parquet").to_pydict()
    assert tasks["__index_level_0__"] == [instruction]
    (meta,) = pq.read_table(tmp_path / "ds/meta/episodes/chunk-000/file-000.parquet").to_pylist()
    assert json.loads(meta["rsb_episode"])["layout_changes"] == episode["layout_changes"]
    frames = pq.read_table(tmp_path / "ds/data/chunk-000/file-000.parquet")
    assert frames.num_rows == n
    # the cabinet's and stove's joints are every frame's environment state, named in order
    assert info["features"]["observation.environment_state"] == {
        "dtype": "float32", "shape": [4], "names": names, "fps": 20
    }  # fmt: skip
    assert info["rsb_environment_state"] == {"holds": "fixture_joints", "names": names}
    assert json.loads(meta["rsb_fixture_joints"]) == names
    exported = np.array(frames.column("observation.environment_state").to_pylist(), np.float32)
    np.testing.assert_array_equal(exported, demo.fixture_joints.astype(np.float32))
