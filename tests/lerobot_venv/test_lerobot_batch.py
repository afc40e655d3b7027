"""``rsb eval --batch`` with a LeRobot ACT checkpoint: one ``predict_action_chunk`` forward
per round for every waiting episode, the same records as the one-episode path (lerobot's
``predict_action``, ``select_action`` popping its queue), in the lerobot venv."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

from rsb_mj.env.views import PolicyEnv
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.policies.spec import make_policy


def _lines(records) -> list[str]:
    return [json.dumps({**dataclasses.asdict(r), "wall_s": 0.0}, sort_keys=True) for r in records]


def test_act_batch_gives_the_chunk_select_action_queues(act_run):
    policy = make_policy(f"lerobot:{act_run.checkpoint}")
    assert policy.batched
    rng = np.random.default_rng(0)
    obs = [
        {"state": rng.uniform(-0.5, 0.5, 14),
         "images": {c: rng.integers(0, 255, (240, 320, 3), dtype=np.uint8) for c in policy.cameras}}
        for _ in range(3)
    ]  # fmt: skip
    env = PolicyEnv(None, None, ("a", "b"), 20.0, "")
    prompts = ["pick the red one", "pick the blue one", "pick the green one"]
    for slot, prompt in enumerate(prompts):
        policy.reset_slot(slot, env, obs[slot], {"instruction": prompt})
    chunks = policy.act_batch(obs, [0, 1, 2])
    steps = policy._policy.config.n_action_steps
    for o, prompt, chunk in zip(obs, prompts, chunks, strict=True):
        assert chunk.shape == (steps, 14)
        policy.reset(env, o, {"instruction": prompt})
        rows = np.stack([policy.act(o) for _ in range(steps)])  # the queue, one by one
        np.testing.assert_allclose(chunk, rows, rtol=0, atol=1e-5)


def test_rsb_eval_batch_3_records_the_bytes_of_batch_1(act_run, tmp_path):
    spec = f"lerobot:{act_run.checkpoint}"
    runs = {}
    for batch in (1, 3):
        cfg = EvalConfig(
            suites=("RSB-Math-4",), policies=(spec,), episodes=3, out=tmp_path / f"b{batch}",
            split="train", workers=1, max_steps=25, progress=False, batch=batch,
        )  # fmt: skip
        runs[batch] = _lines(run_eval(cfg))
    assert runs[3] == runs[1]
    assert [json.loads(line)["steps"] for line in runs[1]] == [25, 25, 25]  # two forwards each
