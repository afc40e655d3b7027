"""The LeRobot loop's scripts in tools/: their help, their argument checks, and the
lerobot-train command the validity experiment builds (the real runs: tests/lerobot_venv)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

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
