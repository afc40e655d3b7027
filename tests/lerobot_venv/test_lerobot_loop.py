"""The LeRobot loop, closed through lerobot's own code: a ``lerobot-train`` ACT checkpoint on an
``rsb export-lerobot`` dataset runs in ``rsb eval --policy lerobot:CKPT``, and what training
reads equals what ``rsb eval`` hands the policy (conformance, no learning needed)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

import torch
from torch.utils.data import default_collate

from rsb_mj.datasets.demo_file import read_demo
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.policies.lerobot import LeRobotPolicy
from rsb_mj.policies.spec import make_policy

#: Worst per-frame mean |error| of a decoded H.264 frame against the render [0-255 levels];
#: measured: 1.9 mean, 2.3 worst frame over 123 frames x 3 cameras at 320x240.
CODEC_MEAN_ERROR = 4.0


def test_validity_script_trains_act_and_rsb_eval_scores_it(act_run):
    """tools/validity_act.py end to end: demos, export, lerobot-train (2 steps, no backbone
    weights), rsb eval of the checkpoint (records, no errors), the rates printed."""
    ckpt = act_run.checkpoint
    config = json.loads((ckpt / "config.json").read_text())
    assert config["type"] == "act" and config["pretrained_backbone_weights"] is None
    assert sorted(config["input_features"]) == [
        "observation.images.cam_high",
        "observation.images.cam_left_wrist",
        "observation.images.cam_right_wrist",
        "observation.state",
    ]
    assert config["input_features"]["observation.images.cam_high"]["shape"] == [3, 240, 320]
    assert (ckpt / "model.safetensors").is_file()
    assert (ckpt / "policy_preprocessor.json").is_file()
    assert (ckpt / "policy_postprocessor.json").is_file()
    records = read_records(act_run.out / "eval" / "episodes.jsonl")
    assert [(r.index, r.split, r.is_error) for r in records] == [
        (0, "eval", False),
        (1, "eval", False),
    ]
    assert all(1 <= r.steps <= 40 for r in records)
    assert {r.policy for r in records} == {f"lerobot:{ckpt}"}
    result = json.loads((act_run.out / "validity.json").read_text())
    assert (result["steps"], result["episodes"], result["errors"]) == (2, 2, 0)
    assert result["choices"] == 4 and result["chance"] == 0.25
    assert "validity: RSB-Math-4 ACT, 2 steps on 2 demos, 2 eval episodes (0 errors): GSR" in (
        act_run.stdout
    )


def _pixel_error(a: torch.Tensor, b: torch.Tensor, std: torch.Tensor) -> float:
    """Mean |a - b| of two normalized (1, 3, H, W) images, in 0-255 levels."""
    return float(((a - b) * std).abs().mean() * 255)


def test_training_frames_equal_what_rsb_eval_hands_the_policy(act_run, monkeypatch, tmp_path):
    """Train row 0 through both sides. Training side: lerobot's own ``make_dataset`` from the
    checkpoint's train config (LeRobotDataset with the policy's delta timestamps, video
    decoded by torchcodec), collated, through the checkpoint's pre-processor. Eval side: the
    batch ``select_action`` receives inside ``rsb eval``'s runner (``lerobot:CKPT``, the
    same row). A perfect imitator answers each step with the training target's normalized
    action, so the post-processor's output must be the demonstration's action and the
    episode the expert's success."""
    from lerobot.configs.policies import PreTrainedConfig
    from lerobot.configs.train import TrainPipelineConfig
    from lerobot.datasets.factory import make_dataset
    from lerobot.policies.act.modeling_act import ACTPolicy
    from lerobot.policies.factory import make_pre_post_processors

    ckpt = act_run.checkpoint
    dataset = make_dataset(TrainPipelineConfig.from_pretrained(ckpt))
    pre, _ = make_pre_post_processors(
        PreTrainedConfig.from_pretrained(ckpt), pretrained_path=str(ckpt)
    )
    meta = dataset.meta.episodes[0]
    lo, hi = meta["dataset_from_index"], meta["dataset_to_index"]
    assert meta["rsb_source"] == "episode_000000.hdf5"
    demo = read_demo(act_run.out / "demos" / meta["rsb_source"], images=False)
    std = {k: torch.as_tensor(v["std"], dtype=torch.float32) for k, v in dataset.meta.stats.items()}
    seen: list[dict] = []

    def imitator(self, batch):
        train = pre(default_collate([dataset[lo + min(len(seen), hi - lo - 1)]]))
        step = {"task": (list(batch["task"]), list(train["task"]))}
        step["keys"] = (
            sorted(k for k in batch if k.startswith("observation.")),
            sorted(k for k in train if k.startswith("observation.")),
        )
        for key in step["keys"][0]:
            a, b = batch[key], train[key]
            step[key] = (tuple(a.shape), tuple(b.shape), a.dtype, b.dtype)
            if "images" in key:
                step[key + "/error"] = _pixel_error(a, b, std[key])
                step[key + "/bgr"] = _pixel_error(a.flip(1), b, std[key])
            else:
                step[key + "/error"] = float(((a - b) * std[key]).abs().max())
        seen.append(step)
        return train["action"][:, 0]  # the training target of this step, normalized

    actions: list[np.ndarray] = []
    act = LeRobotPolicy.act
    monkeypatch.setattr(ACTPolicy, "select_action", imitator)
    monkeypatch.setattr(
        LeRobotPolicy, "act", lambda self, obs: actions.append(act(self, obs)) or actions[-1]
    )
    (record,) = run_eval(
        EvalConfig(
            suites=("RSB-Math-4",), policies=(f"lerobot:{ckpt}",), episodes=1,
            out=tmp_path / "eval", split="train", start=0, workers=1, progress=False,
        )
    )  # fmt: skip
    assert (record.success, record.steps, len(seen)) == (True, hi - lo, hi - lo)
    cams = ["cam_high", "cam_left_wrist", "cam_right_wrist"]
    keys = [f"observation.images.{c}" for c in cams] + ["observation.state"]
    for step in seen:
        assert step["keys"] == (keys, keys)
        assert step["task"] == ([demo.attrs["instruction"]], [demo.attrs["instruction"]])
        for key in keys[:3]:
            assert step[key] == ((1, 3, 240, 320), (1, 3, 240, 320), torch.float32, torch.float32)
            assert step[key + "/error"] < CODEC_MEAN_ERROR, (key, step[key + "/error"])
            assert step[key + "/bgr"] > 3 * CODEC_MEAN_ERROR  # the bound tells channel orders apart
        assert step["observation.state"] == ((1, 14), (1, 14), torch.float32, torch.float32)
        assert step["observation.state/error"] < 1e-5  # rad; grippers in the export's scale
    executed = np.stack(actions)
    assert executed.shape == (hi - lo, 14)
    np.testing.assert_allclose(executed, np.asarray(demo.actions), rtol=0, atol=1e-5)


def test_cuda_device_runs_or_is_refused_by_name(act_run):
    """``,device=cuda`` puts the policy on the GPU where torch sees one, and is refused with
    the reason where it does not."""
    spec = f"lerobot:{act_run.checkpoint},device=cuda"
    if torch.cuda.is_available():
        policy = make_policy(spec)
        assert next(policy._policy.parameters()).device.type == "cuda"
    else:
        with pytest.raises(EvalError, match=r"device 'cuda' but torch sees no CUDA device"):
            make_policy(spec)


def test_a_policy_reads_only_the_cameras_its_checkpoint_declares(act_run):
    policy = make_policy(f"lerobot:{act_run.checkpoint.parent}")  # the checkpoint folder
    assert isinstance(policy, LeRobotPolicy)
    assert policy.cameras == ("head", "left_wrist", "right_wrist")
    assert policy.checkpoint.path == act_run.checkpoint
    assert policy.checkpoint.policy_type == "act"
    assert policy.checkpoint.convention == "aloha"  # read from the dataset's meta/info.json


def test_a_sealed_run_runs_the_checkpoint_in_the_sandbox(act_run, tmp_path):
    """``rsb eval --sealed --policy lerobot:CKPT``: the checkpoint runs in a sandboxed policy
    process (its folder bound read-only), scored, with no error or policy fault. As root
    the policy is user nobody, and lerobot-train wrote ``model.safetensors`` with mode 0600
    under pytest's 0700 tmp folder, named through ``checkpoints/last``: it was a policy
    fault per episode (issue 45), now the sandbox binds a readable copy (the file itself
    unchanged)."""
    from rsb_mj.policies.sandbox import available

    if available() is not None:
        pytest.skip(f"the sandbox is unavailable: {available()}")
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"a sealed lerobot test secret, 32+ bytes\n")
    secret.chmod(0o600)
    ckpt = act_run.checkpoint
    model = ckpt.resolve() / "model.safetensors"
    mode = model.stat().st_mode
    (record,) = run_eval(
        EvalConfig(
            suites=("RSB-Math-4",), policies=(f"lerobot:{ckpt}",), episodes=1,
            out=tmp_path / "eval", max_steps=10, workers=1, progress=False,
            sealed=True, secret_file=secret,
        )
    )  # fmt: skip
    assert record.policy == f"lerobot:{ckpt}"
    assert (record.termination, record.error) == ("step_limit", None)
    assert record.steps == 10
    assert model.stat().st_mode == mode  # lerobot-train's (0600 here); rsb changed nothing
