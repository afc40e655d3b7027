"""The LeRobot loop's scripts in tools/: their help, their argument checks, and the
lerobot-train command the validity experiment builds (the real runs: tests/lerobot_venv)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def load_validity():
    spec = importlib.util.spec_from_file_location("validity_act", TOOLS / "validity_act.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_validity_help_names_the_real_experiment():
    done = subprocess.run(
        [sys.executable, str(TOOLS / "validity_act.py"), "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "--demos DEMOS         train demonstrations (500)" in done.stdout
    assert "--steps STEPS         ACT training steps (20000)" in done.stdout
    assert "--episodes EPISODES   eval episodes (200)" in done.stdout
    assert "--policy.pretrained_backbone_weights=null" in done.stdout


@pytest.mark.parametrize("flag", ["--demos", "--steps", "--episodes", "--batch-size", "--jobs"])
def test_validity_refuses_counts_below_one(flag, tmp_path):
    done = subprocess.run(
        [sys.executable, str(TOOLS / "validity_act.py"), "--out", str(tmp_path), flag, "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"error: {flag} must be at least 1" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_validity_trains_from_scratch_then_resumes(tmp_path):
    tool = load_validity()
    args = tool.parse_args(
        ["--out", str(tmp_path), "--steps", "3", "--train-arg=--policy.dim_model=64"]
    )
    train = tmp_path / "train"
    cmd = tool.train_command(args, tmp_path / "dataset", train)
    assert Path(cmd[0]).name == "lerobot-train"
    assert cmd[1:] == [
        "--dataset.repo_id=rsb_mj/RSB-Math-4",
        f"--dataset.root={tmp_path / 'dataset'}",
        "--policy.type=act",
        "--policy.device=cpu",
        "--policy.pretrained_backbone_weights=null",
        "--policy.push_to_hub=false",
        "--steps=3",
        "--batch_size=8",
        "--save_freq=3",
        "--log_freq=3",
        "--eval_freq=0",
        "--seed=1000",
        "--num_workers=0",
        "--wandb.enable=false",
        f"--output_dir={train}",
        "--policy.dim_model=64",
    ]
    state = train / "checkpoints" / "last" / "training_state"
    state.mkdir(parents=True)
    (state / "training_step.json").write_text(json.dumps({"step": 2}))
    assert tool.trained_steps(train) == 2
    config = train / "checkpoints" / "last" / "pretrained_model" / "train_config.json"
    assert tool.train_command(args, tmp_path / "dataset", train)[1:] == [
        f"--config_path={config}",
        "--resume=true",
        "--steps=3",
    ]


def test_lerobot_venv_script_help():
    done = subprocess.run(
        ["bash", str(TOOLS / "lerobot_venv.sh"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("Build the LeRobot policy venv")
    assert "lerobot 0.4.4 is installed with --no-deps" in done.stdout
    usage = subprocess.run(["bash", str(TOOLS / "lerobot_venv.sh")], capture_output=True, text=True)
    assert usage.returncode == 2


def load_baseline():
    spec = importlib.util.spec_from_file_location("baseline", TOOLS / "baseline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_baseline_help_names_the_run_and_its_defaults():
    done = subprocess.run(
        [sys.executable, str(TOOLS / "baseline.py"), "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "--suites SUITES       comma-separated suites (A2A-Color,RSB-Math-4)" in done.stdout
    assert "--episodes EPISODES   eval episodes per suite (200)" in done.stdout
    assert "--instruction-features DIM" in done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--demos", "0"], "error: --demos must be at least 1"),
        (["--width", "0"], "error: --width must be at least 1"),
        (["--suites", "A2A-Colour"], "error: --suites: unknown suite 'A2A-Colour'"),
    ],
)
def test_baseline_refuses_bad_arguments(argv, message, tmp_path):
    done = subprocess.run(
        [sys.executable, str(TOOLS / "baseline.py"), "--out", str(tmp_path / "o"), *argv],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert message in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_baseline_trains_the_small_act_then_resumes(tmp_path):
    tool = load_baseline()
    args = tool.parse_args(["--out", str(tmp_path), "--steps", "50"])
    train = tmp_path / "train"
    cmd = tool.train_command(args, tmp_path / "dataset", train)
    assert Path(cmd[0]).name == "lerobot-train"
    assert "--policy.vision_backbone=resnet18" in cmd
    assert "--policy.pretrained_backbone_weights=null" in cmd
    assert "--policy.dim_model=256" in cmd and "--batch_size=16" in cmd
    assert f"--dataset.root={tmp_path / 'dataset'}" in cmd
    state = train / "checkpoints" / "last" / "training_state"
    state.mkdir(parents=True)
    (state / "training_step.json").write_text(json.dumps({"step": 20}))
    assert tool.trained_steps(train) == 20
    config = train / "checkpoints/last/pretrained_model/train_config.json"
    assert tool.train_command(args, tmp_path / "dataset", train)[1:] == [
        f"--config_path={config}", "--resume=true", "--steps=50",
    ]  # fmt: skip


def test_baseline_folder_keeps_its_counts(tmp_path):
    tool = load_baseline()
    tool.check_fixed(tool.parse_args(["--out", str(tmp_path), "--demos", "5"]), tmp_path)
    assert json.loads((tmp_path / "baseline_args.json").read_text())["demos"] == 5
    tool.check_fixed(tool.parse_args(["--out", str(tmp_path), "--demos", "5", "--steps", "9"]),
                     tmp_path)  # fmt: skip
    with pytest.raises(SystemExit, match=r"--demos \(5, now 6\); use a new --out"):
        tool.check_fixed(tool.parse_args(["--out", str(tmp_path), "--demos", "6"]), tmp_path)


def test_baseline_loss_curve_counts_steps_from_each_start():
    tool = load_baseline()
    log = "\n".join([
        tool.MARK.format(start=0, every=100),
        "INFO step:100 smpl:2K ep:10 epch:0.01 loss:2.500 grdn:10 lr:1.0e-05",
        "INFO step:200 smpl:3K ep:20 epch:0.02 loss:1.500 grdn:9 lr:1.0e-05",
        "INFO step:300 smpl:5K ep:30 epch:0.03 loss:1.400 grdn:9 lr:1.0e-05",
        "killed",
        tool.MARK.format(start=200, every=100),
        "INFO step:300 smpl:5K ep:30 epch:0.03 loss:1.300 grdn:9 lr:1.0e-05",
        "INFO Checkpoint policy after step 300",
    ])  # fmt: skip
    assert tool.loss_curve(log) == [(100, 2.5), (200, 1.5), (300, 1.3)]


def test_baseline_links_every_suites_demos_in_order(tmp_path):
    tool = load_baseline()
    for suite in ("A2A-Color", "RSB-Math-4"):
        (tmp_path / suite).mkdir()
        for i in (0, 1):
            (tmp_path / suite / f"episode_{i:06d}.hdf5").write_text(f"{suite} {i}")
    combined = tool.link_demos(tmp_path, ["A2A-Color", "RSB-Math-4"])
    names = sorted(p.name for p in combined.iterdir())
    assert names == ["episode_0000000.hdf5", "episode_0000001.hdf5",
                     "episode_1000000.hdf5", "episode_1000001.hdf5"]  # fmt: skip
    assert (combined / "episode_1000001.hdf5").read_text() == "RSB-Math-4 1"


def test_baseline_diagnosis_rows_of_each_arm():
    tool = load_baseline()
    assert tool.arm_rows("seen", 100, 50) == ("train", range(0, 50))
    assert tool.arm_rows("seen", 2, 50) == ("train", range(0, 2))  # only rows with a demo
    assert tool.arm_rows("new-layout", 100, 50) == ("train", range(100, 150))
    assert tool.arm_rows("eval", 100, 50) == ("eval", range(0, 50))


def _close(tcp, step=60, arm="right"):
    blocks = {"block_a": [0.0, 0.0, 0.02], "block_b": [0.1, 0.0, 0.02],
              "block_c": [0.2, 0.0, 0.02], "block_d": [0.3, 0.0, 0.02]}  # fmt: skip
    return {"step": step, "arm": arm, "tcp": tcp, "blocks": blocks}


@pytest.mark.parametrize(
    ("tcp", "cls", "nearest", "d_nearest"),
    [
        ([0.105, 0.0, 0.02], "on a block", "block_b", 0.005),
        ([0.13, 0.0, 0.02], "near a block", "block_b", 0.03),
        ([0.15, 0.04, 0.02], "away from every block", "block_b", 0.064),
        ([0.1, 0.0, 0.09], "in the air", "block_b", 0.0),
    ],
)
def test_baseline_diagnosis_classifies_where_a_gripper_closes(tcp, cls, nearest, d_nearest):
    tool = load_baseline()
    where = tool.close_geometry(_close(tcp), "block_d")
    assert where["class"] == cls and where["nearest"] == nearest
    assert where["d_nearest_m"] == d_nearest
    assert where["d_target_m"] == round(float(np.hypot(0.3 - tcp[0], tcp[1])), 4)
    assert where["d_centroid_m"] == round(float(np.hypot(0.15 - tcp[0], tcp[1])), 4)
    assert (where["step"], where["arm"], where["tcp_height_m"]) == (60, "right", tcp[2])
    assert tool.close_geometry(None, "block_d") == {"class": "never"}


def test_baseline_diagnosis_traces_the_experts_close_on_its_block():
    tool = load_baseline()
    row = tool._diag_episode(("expert", "expert", "train", 0, 75))
    assert (row["target"], row["target_slot"], row["grasped"], row["choice"]) == (
        "block_c", 1, True, "block_c",
    )  # fmt: skip
    first = row["first_close"]
    assert (first["class"], first["nearest"], first["step"], first["arm"]) == (
        "on a block", "block_c", 53, "left",
    )  # fmt: skip
    assert first["d_nearest_m"] < 0.005 and 0.015 < first["tcp_height_m"] < 0.025
    assert row["closes"] == 1 and row["trace"][0]["step"] == 53


def test_baseline_diagnosis_counts_the_demos_slots_and_arms(tmp_path):
    import h5py

    tool = load_baseline()
    layouts = [{"block_a": [0.1, 0, 0], "block_b": [-0.2, 0, 0], "block_c": [0.0, 0, 0],
                "block_d": [0.2, 0, 0]}] * 3  # fmt: skip
    for i, (target, side, step) in enumerate([("block_b", 6, 50), ("block_a", 13, 52),
                                               ("block_a", 13, 55)]):  # fmt: skip
        action = np.ones((60, 14))
        action[step - 1 :, side] = 0.0
        with h5py.File(tmp_path / f"episode_{i:06d}.hdf5", "w") as f:
            f.attrs["episode"] = json.dumps({"layout": layouts[i]})
            f.attrs["target"] = target
            f["action"] = action
    stats = tool.demo_stats(tmp_path)
    assert stats == {"demos": 3, "target_slot": [1, 0, 2, 0], "arm": {"left": 1, "right": 2},
                     "close_step": [50, 52, 55]}  # fmt: skip


def test_baseline_diagnose_needs_a_finished_run(tmp_path):
    done = subprocess.run(
        [sys.executable, str(TOOLS / "baseline.py"), "--out", str(tmp_path), "--diagnose"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        f"baseline: --diagnose needs a finished run in {tmp_path} (its baseline_args.json, "
        f"RSB-Math-4 demos and a checkpoint); run tools/baseline.py --out {tmp_path} first\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_baseline_diagnosis_measures_distances_to_the_demos_targets():
    tool = load_baseline()
    near = tool.nearest_target_m([[0.0, 0.0], [0.3, 0.4]], [[0.0, 0.1], [0.3, 0.0]])
    assert np.allclose(near, [0.1, 0.4])
    assert tool.nearest_target_m([], [[0.0, 0.1]]) == []
    assert tool.quartiles([0.01, 0.02, 0.03, 0.04, 0.05]) == [0.02, 0.03, 0.04]
    assert tool.quartiles([]) == []
    # one target in the middle of RSB-Math-4's 50 x 12 cm candidates region: 1000 seeded
    # uniform points lie a median 12.85 cm from it (the region is long along x)
    assert tool.uniform_nearest_target_m([[0.0, -0.04]]) == 0.1285
