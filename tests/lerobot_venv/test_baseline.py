"""tools/baseline.py end to end with tiny counts (issue 35): demos of A2A-Color and RSB-Math-4
(head camera 128x96), one export with the instruction vector, lerobot-train ACT (2 steps),
rsb eval on both suites, the table, the learning curve; a rerun skips every finished stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

from rsb_mj.evaluation.records import read_records
from rsb_mj.policies.instruction_features import INSTRUCTION_KEY, encode
from rsb_mj.policies.lerobot import LeRobotPolicy

#: The repository (this file is tests/lerobot_venv/test_baseline.py).
REPO = Path(__file__).resolve().parents[2]
TINY = ["--demos", "2", "--steps", "2", "--episodes", "2", "--batch-size", "2",
        "--max-steps", "40", "--save-every", "1", "--log-every", "1", "--tiny"]  # fmt: skip


def baseline(out):
    cmd = [sys.executable, str(REPO / "tools" / "baseline.py"), "--out", str(out), *TINY]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=1800,
        env=dict(os.environ),  # hub access off: conftest's offline fixture
    )
    log = out / "baseline.log"
    assert done.returncode == 0, done.stderr[-3000:] + (
        log.read_text()[-3000:] if log.exists() else ""
    )
    return done.stdout


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("baseline")
    return out, baseline(out)


def test_baseline_runs_every_stage_and_writes_the_table(run):
    out, stdout = run
    info = json.loads((out / "dataset" / "meta" / "info.json").read_text())
    assert info["total_episodes"] == 4 and info["total_tasks"] == 4
    assert [k for k in info["features"] if k.startswith("observation.images")] == [
        "observation.images.cam_high"
    ]
    assert info["features"]["observation.images.cam_high"]["shape"] == [96, 128, 3]
    assert info["features"][INSTRUCTION_KEY]["shape"] == [256]
    config = json.loads((out / "train/checkpoints/last/pretrained_model/config.json").read_text())
    assert config["type"] == "act" and config["pretrained_backbone_weights"] is None
    assert config["input_features"][INSTRUCTION_KEY]["shape"] == [256]
    records = read_records(out / "eval" / "episodes.jsonl")
    assert sorted((r.suite, r.index) for r in records) == [
        ("A2A-Color", 0), ("A2A-Color", 1), ("RSB-Math-4", 0), ("RSB-Math-4", 1),
    ]  # fmt: skip
    assert {r.policy for r in records} == {"baseline-act-cpu"}
    assert not any(r.is_error for r in records)
    result = json.loads((out / "baseline.json").read_text())
    assert [r["suite"] for r in result["rows"]] == ["A2A-Color", "RSB-Math-4"]
    assert [r["chance"] for r in result["rows"]] == [0.5, 0.25]
    assert result["steps"] == 2 and [s for s, _ in result["loss"]] == [1, 2]
    table = (out / "baseline.md").read_text().splitlines()
    assert table[0].startswith("| suite | policy | episodes | GSR [95% CI]")
    assert table[2].startswith("| A2A-Color | baseline-act-cpu | 2 (0 errors) | ")
    assert table[3].startswith("| RSB-Math-4 | baseline-act-cpu | 2 (0 errors) | ")
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| A2A-Color | baseline-act-cpu |" in stdout


def test_the_policy_sees_the_instruction_vector_it_trained_on(run):
    out, _ = run
    import pyarrow.parquet as pq

    data = pq.read_table(out / "dataset/data/chunk-000/file-000.parquet")
    tasks = pq.read_table(out / "dataset/meta/tasks.parquet").to_pandas()
    task_of = {int(i): t for t, i in zip(tasks.index, tasks["task_index"], strict=True)}
    policy = LeRobotPolicy(f"lerobot:{out / 'train/checkpoints/last/pretrained_model'}")
    obs = {"images": {"head": np.zeros((96, 128, 3), np.uint8)}, "state": np.zeros(14)}
    for row in (0, data.num_rows - 1):
        task = task_of[data.column("task_index")[row].as_py()]
        stored = np.array(data.column(INSTRUCTION_KEY)[row].as_py(), np.float32)
        assert (stored == encode(task, 256)).all()
        assert (policy.frame(obs, task)[INSTRUCTION_KEY] == stored).all()


def test_a_rerun_skips_finished_stages(run):
    out, _ = run
    table = (out / "baseline.md").read_bytes()
    stdout = baseline(out)
    assert f"= {out / 'dataset'}: exported, skipped" in stdout
    assert f"= {out / 'train'}: 2 steps trained, skipped" in stdout
    assert "rsb_mj demos" not in stdout and "lerobot-train" not in stdout
    assert (out / "baseline.md").read_bytes() == table
    assert len(read_records(out / "eval" / "episodes.jsonl")) == 4


def diagnose(out):
    cmd = [sys.executable, str(REPO / "tools" / "baseline.py"), "--out", str(out), "--diagnose",
           "--diagnose-episodes", "1", "--max-steps", "75", "--jobs", "1"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_diagnose_traces_seen_new_layout_and_eval_rows_then_resumes(run):
    out, _ = run
    stdout = diagnose(out)
    assert f"= {out / 'diagnosis/episodes.jsonl'}: 0 of 5 episodes traced, 5 to run" in stdout
    result = json.loads((out / "diagnosis.json").read_text())
    arms = result["arms"]
    assert list(arms) == ["seen", "seen-blank", "new-layout", "eval", "expert"]
    assert [arms[a]["rows"] for a in arms] == [
        "train 0-0", "train 0-0", "train 2-2", "eval 0-0", "train 0-0",
    ]  # fmt: skip
    assert [arms[a]["episodes"] for a in arms] == [1, 1, 1, 1, 1]
    policies = {arms[a]["policy"] for a in ("seen", "seen-blank", "new-layout", "eval")}
    assert policies == {"baseline-act-cpu"}
    # the reference: the expert closes its left gripper on block_c (slot 1) and grasps it
    expert = arms["expert"]
    assert expert["gsr"]["k"] == 1 and expert["first_close"]["on a block"] == 1
    assert expert["choice_slot"] == [1, 0, 0, 0] == expert["target_slot"]
    # train rows 0 and 1: block_c in slot 1 and block_a in slot 2, both by the left arm
    assert result["demos"] == {
        "demos": 2,
        "target_slot": [1, 1, 0, 0],
        "arm": {"left": 2, "right": 0},
        "close_step": [53, 53, 53],
    }
    pixels = result["pixels"]
    assert pixels["rows"] == 2 and pixels["image"] == "128x96"
    # 4 cm blocks 9-11 px wide, 14-22 px apart (a segmentation render of rows 0 and 1)
    assert pixels["block_width_px"] == [9, 10.0, 11]
    assert pixels["nearest_centre_px"] == [14.3, 17.2, 22.1]
    md = (out / "diagnosis.md").read_text()
    assert md.startswith("# Why RSB-Math-4's GSR is low: ")
    assert "| expert (train 0-0) | expert | 1 | 1/1 (100%) [21%, 100%] | 1 of 1 | " in md
    rows = [
        json.loads(line) for line in (out / "diagnosis/episodes.jsonl").read_text().splitlines()
    ]
    assert sorted((r["arm"], r["index"]) for r in rows) == [
        ("eval", 0), ("expert", 0), ("new-layout", 2), ("seen", 0), ("seen-blank", 0),
    ]  # fmt: skip
    again = diagnose(out)
    assert "5 of 5 episodes traced, 0 to run" in again
    assert (out / "diagnosis.md").read_text() == md


BOWL = REPO / "tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl"


def test_task_mode_trains_on_a_goal_file_and_scores_unseen_seeds(tmp_path):
    """--task (issue 42 item 5): the expert's demos of one LIBERO file on seeds 0-1 with the
    head and both wrist cameras, the export, 2 training steps, rsb eval on seeds 1000-1001;
    the success table; a rerun skips every finished stage."""
    h5py = pytest.importorskip("h5py")
    out = tmp_path / "bowl"
    argv = ["--task", str(BOWL), "--demos", "2", "--steps", "2", "--episodes", "2",
            "--batch-size", "2", "--max-steps", "40", "--save-every", "1", "--log-every", "1",
            "--tiny", "--width", "64", "--height", "48"]  # fmt: skip
    cmd = [sys.executable, str(REPO / "tools" / "baseline.py"), "--out", str(out), *argv]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-3000:]
    info = json.loads((out / "dataset" / "meta" / "info.json").read_text())
    assert info["total_episodes"] == 2 and info["total_tasks"] == 1
    cams = [k for k in info["features"] if k.startswith("observation.images")]
    assert cams == [
        "observation.images.cam_high",
        "observation.images.cam_left_wrist",
        "observation.images.cam_right_wrist",
    ]
    assert {tuple(info["features"][k]["shape"]) for k in cams} == {(48, 64, 3)}
    records = read_records(out / "eval" / "episodes.jsonl")
    assert sorted(r.seed for r in records) == [1000, 1001]
    assert {(r.policy, Path(r.task).name) for r in records} == {
        ("baseline-act-cpu", "put_the_bowl_on_the_plate.bddl")
    }
    assert not any(r.is_error for r in records)
    demo = sorted((out / "demos" / "put_the_bowl_on_the_plate").glob("episode_*.hdf5"))[0]
    with h5py.File(demo, "r") as f:
        head = json.loads(f.attrs["episode"])["head_camera"]
    result = json.loads((out / "baseline.json").read_text())
    assert result["head_camera"] == [head] and head["fovy"] == 45.0
    assert (result["steps"], result["demos_kept"], result["episodes"], result["errors"]) == (
        2, 2, 2, 0,
    )  # fmt: skip
    assert result["seeds"] == [1000, 1001] and result["success"]["n"] == 2
    assert result["max_steps"] == 40 and result["train_s"] > 0
    table = (out / "baseline.md").read_text().splitlines()
    assert table[2].startswith(
        "| put_the_bowl_on_the_plate.bddl | goal | baseline-act-cpu | "
        "2 (0 errors; seeds 1000-1001) | "
    )
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=dict(os.environ))
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"= {out / 'dataset'}: exported, skipped" in again.stdout
    assert f"= {out / 'train'}: 2 steps trained, skipped" in again.stdout
    assert (out / "baseline.md").read_text().splitlines() == table
    diag = subprocess.run(
        [*cmd, "--diagnose", "--diagnose-episodes", "1", "--jobs", "1"],
        capture_output=True, text=True, timeout=1800, env=dict(os.environ),
    )  # fmt: skip
    assert diag.returncode == 0, diag.stderr[-3000:]
    result = json.loads((out / "diagnosis.json").read_text())
    assert (result["mover"], result["target"], result["max_steps"]) == (
        "akita_black_bowl_1", "plate_1", 40,
    )  # fmt: skip
    arms = result["arms"]
    assert {a: arms[a]["seeds"] for a in arms} == {
        "seen": [0, 0], "eval": [1000, 1000], "expert": [1000, 1000],
    }  # fmt: skip
    assert [arms[a]["success"]["n"] for a in arms] == [1, 1, 1]
    md = (out / "diagnosis.md").read_text().splitlines()
    assert md[0] == (
        f"# Where the policy goes on put_the_bowl_on_the_plate.bddl: "
        f"{out / 'train/checkpoints/last/pretrained_model'}"
    )
    assert md[6].startswith("| seen 0-0 | baseline-act-cpu | ")
    assert md[8].startswith("| expert 1000-1000 | expert | ")
