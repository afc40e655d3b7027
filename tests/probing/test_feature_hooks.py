"""Forward hooks on named modules, with a stand-in for torch's module protocol (the real
torch run, on a LeRobot ACT checkpoint, is tests/lerobot_venv/test_lerobot_features.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.policies.feature_hooks import ModuleFeatures, pooled


class _Handle:
    def __init__(self, hooks, fn):
        self.hooks, self.fn = hooks, fn

    def remove(self):
        self.hooks.remove(self.fn)


class _Module:
    """What ModuleFeatures uses of ``torch.nn.Module``: forward hooks called with
    (module, inputs, output) after each call."""

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


class _Model:
    def __init__(self):
        self.encoder = _Module(lambda x: (np.stack([x, 2 * x]), "attention weights"))
        self.head = _Module(lambda x: {"last_hidden_state": x[None, None, :] + 1})

    def named_modules(self):
        return [("", self), ("encoder", self.encoder), ("head", self.head)]

    def __call__(self, x):
        self.encoder(x)
        return self.head(x)


def test_outputs_are_pooled_over_tokens_in_the_order_named():
    model = _Model()
    hooks = ModuleFeatures(model, ["head", "encoder"])
    assert hooks.take() is None  # nothing ran yet
    model(np.array([1.0, 3.0]))
    got = hooks.take()
    assert list(got) == ["head", "encoder"]
    assert got["encoder"].tolist() == [1.5, 4.5]  # mean of the two tokens [1, 3] and [2, 6]
    assert got["head"].tolist() == [2.0, 4.0]
    assert got["head"].dtype == np.float32
    hooks.clear()
    assert hooks.take() is None  # an act without a forward pass reports nothing
    hooks.remove()
    model(np.array([1.0, 3.0]))
    assert hooks.take() is None and model.encoder.hooks == []


def test_first_and_last_token_pooling():
    model = _Model()
    hooks = ModuleFeatures(model, ["encoder@first"])
    model(np.array([1.0, 3.0]))
    assert hooks.take()["encoder"].tolist() == [1.0, 3.0]
    assert pooled(np.arange(6.0).reshape(3, 2), "last").tolist() == [4.0, 5.0]
    assert pooled(np.float64(2.5)).tolist() == [2.5]


def test_an_unknown_module_names_the_closest_ones():
    with pytest.raises(EvalError) as err:
        ModuleFeatures(_Model(), ["encodr"])
    assert str(err.value) == (
        "--feature-modules: 'encodr' is not a module of the policy's model; closest module "
        "names: encoder (3 in all)"
    )
    with pytest.raises(EvalError, match=r"pooling 'max'; valid choices: mean, first, last"):
        ModuleFeatures(_Model(), ["encoder@max"])
