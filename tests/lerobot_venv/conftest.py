"""Fixtures of the LeRobot loop tests: one tiny run of ``tools/validity_act.py`` (``rsb demos``
-> ``rsb export-lerobot`` -> ``lerobot-train`` ACT -> ``rsb eval --policy lerobot:``) whose
dataset and checkpoint the conformance and vla-eval tests read.

These tests need lerobot, torch and vla-eval in the Python that runs them: the lerobot venv
(``tools/lerobot_venv.sh VENV``; ``.ci/run`` builds it and runs this folder there). The folder
has no ``__init__.py`` on purpose: pytest would otherwise put ``tests/`` on ``sys.path``,
where ``tests/datasets`` shadows the ``datasets`` package lerobot imports.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The tiny ACT of the tests (the defaults are lerobot's ACT: 52M parameters, chunks of 100).
SMALL_ACT = (
    "--policy.dim_model=64", "--policy.n_heads=2", "--policy.dim_feedforward=128",
    "--policy.n_encoder_layers=1", "--policy.n_decoder_layers=1", "--policy.latent_dim=8",
    "--policy.chunk_size=20", "--policy.n_action_steps=20",
)  # fmt: skip
#: Nothing may be fetched from a hub while the tests run.
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "WANDB_MODE": "disabled"}


@dataclass(frozen=True)
class ActRun:
    """The folders of the tiny validity run and what it printed."""

    out: Path
    stdout: str

    @property
    def dataset(self) -> Path:
        """The LeRobot v3.0 export."""
        return self.out / "dataset"

    @property
    def checkpoint(self) -> Path:
        """lerobot-train's last ``pretrained_model`` folder."""
        return self.out / "train" / "checkpoints" / "last" / "pretrained_model"


@pytest.fixture(scope="session", autouse=True)
def offline():
    """Hub access off for this process too (lerobot reads the variables at call time)."""
    saved = {k: os.environ.get(k) for k in OFFLINE}
    os.environ.update(OFFLINE)
    os.environ.setdefault("MUJOCO_GL", "egl")
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def act_run(tmp_path_factory) -> ActRun:
    """2 RSB-Math-4 train demos at 320x240 (rsb eval's image size), a 2-step ACT, 2 eval
    episodes of 40 steps: the validity script with tiny counts, on CPU."""
    out = tmp_path_factory.mktemp("validity")
    cmd = [sys.executable, str(REPO / "tools" / "validity_act.py"), "--out", str(out),
           "--demos", "2", "--steps", "2", "--episodes", "2", "--batch-size", "2",
           "--max-steps", "40", *(f"--train-arg={a}" for a in SMALL_ACT)]  # fmt: skip
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=1800, env={**os.environ, **OFFLINE}
    )
    log = out / "validity.log"
    assert done.returncode == 0, done.stderr[-3000:] + (
        log.read_text()[-3000:] if log.exists() else ""
    )
    return ActRun(out, done.stdout)
