"""``rsb eval --features --feature-modules`` on a real LeRobot ACT checkpoint: forward hooks on
its encoder and decoder layers, pooled over tokens, stored per episode, and torch's real
module outputs (not a stand-in) behind them."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.policies.spec import make_policy
from rsb_mj.probing.store import load_features

#: The tiny ACT's layers (conftest.SMALL_ACT: one encoder and one decoder layer, dim 64).
MODULES = ("model.encoder.layers.0", "model.decoder.layers.0")


def test_hooked_layers_of_act_are_stored_per_episode(act_run, tmp_path):
    out = tmp_path / "run"
    config = EvalConfig(
        suites=("RSB-Math-4",),
        policies=(f"lerobot:{act_run.checkpoint}",),
        episodes=2,
        out=out,
        progress=False,
        max_steps=25,
        features="every:1",
        feature_modules=MODULES,
    )
    records = run_eval(config)
    assert [r.termination != "error" for r in records] == [True, True]
    entry = records[0].features
    # chunks of 20: inference at acts 0 and 20 only; the queued acts report nothing
    assert entry["queries"] == [0, 20]
    assert [(x["name"], x["shape"]) for x in entry["layers"]] == [
        (MODULES[0], [2, 64]),
        (MODULES[1], [2, 64]),
    ]
    layers = load_features(out, entry)
    assert all(np.isfinite(a).all() and a.std() > 0 for a in layers.values())


def test_a_hook_reports_the_token_mean_of_the_modules_output(act_run):
    policy = make_policy(f"lerobot:{act_run.checkpoint}")
    policy.feature_modules = (MODULES[0], f"{MODULES[1]}@first")
    seen = {}
    modules = dict(policy._policy.named_modules())
    handles = [
        modules[name].register_forward_hook(
            lambda m, i, o, name=name: seen.__setitem__(name, o.detach().float())
        )
        for name in MODULES
    ]
    obs = {
        "state": np.zeros(14),
        "images": {c: np.zeros((240, 320, 3), np.uint8) for c in policy.cameras},
    }
    policy.reset(type("E", (), {"candidates": ("a",)})(), obs, {"instruction": "go"})
    policy.act(obs)
    got = policy.features
    for h in handles:
        h.remove()
    encoder = seen[MODULES[0]]  # (tokens, batch 1, 64): ACT is sequence-first
    # the mean over tokens, up to float32 summation order (numpy's and torch's differ)
    assert got[MODULES[0]].tolist() == pytest.approx(
        encoder.reshape(-1, 64).mean(dim=0).tolist(), abs=1e-4
    )
    first_token = seen[MODULES[1]].reshape(-1, 64)[0]  # @first: no pooling, exact
    assert got[MODULES[1]].tolist() == first_token.tolist()
    policy.act(obs)  # a queued action: no forward pass
    assert policy.features is None
    with pytest.raises(EvalError, match=r"'model.encoder.layer.0' is not a module .* closest"):
        policy.feature_modules = ("model.encoder.layer.0",)
