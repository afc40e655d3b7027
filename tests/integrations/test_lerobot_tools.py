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
