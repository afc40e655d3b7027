"""Features over each channel: the policy process's capability and request, an openpi
server's reply key, a Policy subclass's attribute."""

from __future__ import annotations

import numpy as np
import pytest
from policies.openpi_server import FakeOpenPiServer

from rsb_mj.errors import PolicyError
from rsb_mj.policies import make_policy
from rsb_mj.policies.base import Policy
from rsb_mj.policies.child import ChildPolicy
from rsb_mj.policies.features import check_features, read_features


class _Env:
    action_space = observation_space = None
    candidates = ("a", "b")
    control_hz = 20.0
    instruction = "put the cube on the red plate"


OBS = {"state": np.arange(14, dtype=np.float64), "images": {}}
INFO = {"instruction": _Env.instruction, "candidates": _Env.candidates, "step": 0}


def test_a_policy_process_announces_features_and_answers_the_request():
    policy = ChildPolicy("probing.planted:layered")
    try:
        assert policy.capabilities == {"features": True}
        assert policy.offers_features
        policy.reset(_Env(), OBS, INFO)
        policy.act(OBS)
        policy.act(OBS)
        got = read_features(policy)
        assert list(got) == ["input", "deep"]
        assert got["input"].dtype == np.float32  # checked and converted in the process
        assert got["input"].tolist() == [0.0, 1.0, 2.0, 3.0]
        assert got["deep"].tolist() == [2.0, 2.0, 2.0]
    finally:
        policy.close()


def test_a_policy_without_features_is_never_asked():
    policy = ChildPolicy("probing.planted:no_features")
    try:
        assert policy.capabilities == {"features": False}
        assert not policy.offers_features
        assert policy.features is None
    finally:
        policy.close()


def test_features_the_policy_process_refuses_are_a_policy_error_naming_the_layer():
    policy = ChildPolicy("probing.planted:bad_features")
    try:
        policy.reset(_Env(), OBS, INFO)
        for _ in range(3):
            policy.act(OBS)
        with pytest.raises(PolicyError) as err:
            policy.features  # noqa: B018 - a request
        assert str(err.value) == (
            "policy probing.planted:bad_features: features raised PolicyError: policy "
            "probing.planted:bad_features: features: layer 'input' has shape (2, 2); "
            "expected a non-empty 1-D array (pool tokens first, e.g. their mean)"
        )
        policy.act(OBS)  # still in step
    finally:
        policy.close()


def test_an_openpi_servers_features_key_is_the_policys_features():
    def features(obs):
        return {"features": {"vlm.12": np.full(4, obs["state"][0], np.float16), "head": [1.0]}}

    srv = FakeOpenPiServer("hold", extra=features)
    port = srv.start()
    policy = make_policy(f"openpi:127.0.0.1:{port}")
    try:
        assert policy.offers_features and policy.features is None
        policy.reset(_Env(), {**OBS, "images": _images()}, INFO)
        policy.act({**OBS, "images": _images()})
        got = check_features(policy.features, "openpi")
        assert list(got) == ["vlm.12", "head"]
        assert got["vlm.12"].tolist() == [0.0] * 4
    finally:
        policy.close()
        srv.stop()


def _images():
    return {c: np.zeros((24, 32, 3), np.uint8) for c in ("head", "left_wrist", "right_wrist")}


def test_a_policy_subclass_offers_features_by_overriding_or_setting_them():
    class Plain(Policy):
        def reset(self, env, obs, info):
            pass

        def act(self, obs):
            return np.zeros(14)

    class Property(Plain):
        @property
        def features(self):
            return {"p": [1.0]}

    class Method(Plain):
        def features(self):
            return {"m": [2.0]}

    set_later = Plain()
    set_later.features = {"s": [3.0]}
    assert [p.offers_features for p in (Plain(), Property(), Method(), set_later)] == [
        False,
        True,
        True,
        True,
    ]
    assert [read_features(p) for p in (Plain(), Property(), Method(), set_later)] == [
        None,
        {"p": [1.0]},
        {"m": [2.0]},
        {"s": [3.0]},
    ]
