"""``lerobot:PATH`` with ``--feature-modules``, without torch or lerobot: the adapter's own code
(constructor, ``feature_modules``, ``act``, ``features``) runs on stand-ins for the few torch
and lerobot names it imports, so the wiring of the forward hooks is tested in the default
run. The same checks on a real ACT checkpoint are tests/lerobot_venv/test_lerobot_features.py.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from rsb_mj.errors import EvalError, PolicyError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.worker import build_policy
from rsb_mj.policies.lerobot import STATE_KEY, LeRobotPolicy

from .test_lerobot import write_checkpoint

#: Actions per inference of the stand-in policy (a chunking policy's queue).
CHUNK = 2


class _Tensor:
    """What ``LeRobotPolicy.act`` uses of the action tensor."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def reshape(self, *shape):
        return _Tensor(self.array.reshape(*shape))

    def detach(self):
        return self

    def to(self, device):
        return self

    def numpy(self):
        return self.array


class _Handle:
    def __init__(self, hooks, fn):
        self.hooks, self.fn = hooks, fn

    def remove(self):
        self.hooks.remove(self.fn)


class _Layer:
    """A module with forward hooks, as ``torch.nn.Module`` calls them."""

    def __init__(self, fn):
        self.fn, self.hooks = fn, []

    def register_forward_hook(self, fn):
        self.hooks.append(fn)
        return _Handle(self.hooks, fn)

    def __call__(self, x):
        out = self.fn(x)
        for hook in list(self.hooks):
            hook(self, (x,), out)
        return out


class _ActLike:
    """A chunking policy: one forward pass (encoder, then decoder) fills a queue of CHUNK
    actions. The encoder returns sequence-first tokens (tokens, batch 1, dim), as ACT's."""

    def __init__(self):
        self.config = types.SimpleNamespace(use_amp=False)
        self.encoder = _Layer(lambda s: np.stack([s, 3 * s])[:, None, :])
        self.decoder = _Layer(lambda tokens: (tokens.mean(axis=0) + 1, "attention"))
        self.queue: list[np.ndarray] = []
        self.resets = 0

    def named_modules(self):
        return [("", self), ("model.encoder", self.encoder), ("model.decoder", self.decoder)]

    def to(self, device):
        return self

    def eval(self):
        return self

    def reset(self):
        self.queue, self.resets = [], self.resets + 1


def _predict_action(frame, policy, device, pre, post, use_amp, *, task, robot_type):
    if not policy.queue:
        policy.decoder(policy.encoder(frame[STATE_KEY]))
        policy.queue = [np.zeros(14, np.float32) for _ in range(CHUNK)]
    return _Tensor(policy.queue.pop(0))


@pytest.fixture
def fake_lerobot(monkeypatch):
    """Stand-ins for ``torch`` and the three lerobot modules the adapter imports; returns
    the list the built policies are appended to."""
    built: list[_ActLike] = []
    seeds: list[int] = []

    class _Config:
        @staticmethod
        def from_pretrained(path, local_files_only):
            return types.SimpleNamespace(type="act", device="cpu")

    class _Class:
        @staticmethod
        def from_pretrained(path, config):
            built.append(_ActLike())
            return built[-1]

    stand_ins = {
        "torch": {
            "cuda": types.SimpleNamespace(is_available=lambda: False),
            "device": lambda name: name,
            "manual_seed": seeds.append,
        },
        "lerobot": {},
        "lerobot.configs": {},
        "lerobot.configs.policies": {"PreTrainedConfig": _Config},
        "lerobot.policies": {},
        "lerobot.policies.factory": {
            "get_policy_class": lambda kind: _Class,
            "make_pre_post_processors": lambda config, path, preprocessor_overrides: (None, None),
        },
        "lerobot.utils": {},
        "lerobot.utils.control_utils": {"predict_action": _predict_action},
    }
    for name, attrs in stand_ins.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)
    return built


def _obs(policy, state):
    images = {c: np.zeros((48, 64, 3), np.uint8) for c in policy.cameras}
    return {"state": np.asarray(state, dtype=np.float64), "images": images}


def test_hooked_modules_report_their_token_mean_on_inference_acts_only(tmp_path, fake_lerobot):
    policy = LeRobotPolicy(f"lerobot:{write_checkpoint(tmp_path / 'ckpt')}")
    assert (policy.feature_modules, policy.offers_features, policy.features) == ((), False, None)
    policy.feature_modules = ("model.encoder", "model.decoder@first")
    assert policy.feature_modules == ("model.encoder", "model.decoder")
    assert policy.offers_features
    obs = _obs(policy, np.linspace(-0.5, 0.5, 14))
    policy.reset(types.SimpleNamespace(candidates=("a", "b")), obs, {"instruction": "go"})
    state = policy.frame(obs)[STATE_KEY]
    policy.act(obs)  # inference: the queue was empty
    got = policy.features
    assert list(got) == ["model.encoder", "model.decoder"]
    # the encoder's tokens are s and 3s: their mean is 2s (float32, as the hook stores it)
    assert got["model.encoder"].dtype == np.float32
    assert got["model.encoder"].tolist() == (2 * state).astype(np.float32).tolist()
    # the decoder returns (hidden (1, 14), attention): the tuple's first element, first row
    assert got["model.decoder"].tolist() == (2 * state + 1).astype(np.float32).tolist()
    policy.act(obs)  # the second action of the chunk: no forward pass, no features
    assert policy.features is None
    policy.act(_obs(policy, np.zeros(14)))  # a new chunk: features again, of this frame
    assert (
        policy.features["model.encoder"].tolist()
        == (2 * policy.frame(_obs(policy, np.zeros(14)))[STATE_KEY]).tolist()
    )


def test_setting_the_modules_again_replaces_the_hooks(tmp_path, fake_lerobot):
    policy = LeRobotPolicy(f"lerobot:{write_checkpoint(tmp_path / 'ckpt')}")
    model = fake_lerobot[-1]
    policy.feature_modules = ("model.encoder", "model.decoder")
    assert (len(model.encoder.hooks), len(model.decoder.hooks)) == (1, 1)
    policy.feature_modules = ("model.decoder",)
    assert (len(model.encoder.hooks), len(model.decoder.hooks)) == (0, 1)
    policy.act(_obs(policy, np.ones(14)))
    assert list(policy.features) == ["model.decoder"]
    policy.feature_modules = ()
    assert (model.encoder.hooks, model.decoder.hooks) == ([], [])
    assert (policy.offers_features, policy.features) == (False, None)
    with pytest.raises(EvalError) as err:
        policy.feature_modules = ("model.encodr",)
    assert str(err.value) == (
        "--feature-modules: 'model.encodr' is not a module of the policy's model; closest "
        "module names: model.encoder, model.decoder (3 in all)"
    )


def test_the_worker_hands_the_jobs_modules_to_the_policy(tmp_path, fake_lerobot):
    ckpt = write_checkpoint(tmp_path / "ckpt")
    job = Job(
        suite="RSB-Math-4",
        split="eval",
        index=0,
        policy=f"lerobot:{ckpt}",
        max_steps=10,
        feature_modules=("model.decoder",),
    )
    policy = build_policy(job)
    assert isinstance(policy, LeRobotPolicy)
    assert policy.feature_modules == ("model.decoder",)
    assert len(fake_lerobot[-1].decoder.hooks) == 1
    with pytest.raises(PolicyError, match=r"policy random-grasp: takes no --feature-modules"):
        build_policy(Job("RSB-Math-4", "eval", 0, "random-grasp", 10, feature_modules=("x",)))
