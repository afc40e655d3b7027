"""openpi:HOST:PORT against a local server speaking openpi's websocket protocol."""

import urllib.request

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.policies import OpenPiPolicy, make_policy

from .openpi_server import HORIZON, METADATA, HoldStateServer


@pytest.fixture
def server():
    srv = HoldStateServer()
    srv.port = srv.start()
    yield srv
    srv.stop()


def _obs(h=240, w=320):
    rng = np.random.default_rng(0)
    images = {
        cam: rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
        for cam in ("head", "left_wrist", "right_wrist")
    }
    return {"state": np.linspace(-1, 1, 14), "images": images}


def _info(instruction="what is 2 plus 2? place the correct block"):
    return {"instruction": instruction, "episode": {"seed": 3}, "candidates": ("a", "b")}


def test_observation_maps_to_the_aloha_format_and_chunks_come_back(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}:3")
    assert isinstance(policy, OpenPiPolicy) and policy.cameras == (
        "head", "left_wrist", "right_wrist",
    )  # fmt: skip
    obs = _obs()
    policy.reset(None, obs, _info())
    assert policy.metadata == METADATA
    chunk = policy.act(obs)
    assert chunk.shape == (3, 14) and chunk.dtype == np.float64
    np.testing.assert_allclose(chunk[2], np.linspace(-1, 1, 14).astype(np.float32))
    (sent,) = server.seen
    assert sorted(sent) == ["images", "prompt", "state"]
    assert sent["prompt"] == "what is 2 plus 2? place the correct block"
    assert sent["state"].dtype == np.float32 and sent["state"].shape == (14,)
    assert sorted(sent["images"]) == ["cam_high", "cam_left_wrist", "cam_right_wrist"]
    high = sent["images"]["cam_high"]
    assert high.shape == (3, 224, 224) and high.dtype == np.uint8
    # 320x240 padded to 224x224: 168 rows of image, 28 black rows above and below
    assert not high[:, :28].any() and high[:, 28:196].any()
    policy.close()


def test_full_horizon_by_default_is_ten_rows_capped_by_the_server_chunk(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info())
    assert policy.horizon == 10 and policy.act(_obs()).shape == (HORIZON, 14)
    policy.close()


def test_server_errors_become_eval_errors(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info("boom"))
    with pytest.raises(EvalError, match=r"(?s)server error: .*ValueError: the policy exploded"):
        policy.act(_obs())
    policy.close()


def test_health_check_answers(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as resp:
        assert resp.status == 200


def test_an_unreachable_server_is_named(server):
    port = server.port
    server.stop()
    policy = make_policy(f"openpi:127.0.0.1:{port}")
    with pytest.raises(
        EvalError, match=rf"cannot reach the openpi server at ws://127.0.0.1:{port}"
    ):
        policy.reset(None, _obs(), _info())


def test_missing_cameras_are_named(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info())
    obs = _obs()
    del obs["images"]["left_wrist"]
    with pytest.raises(EvalError, match=r"observation lacks camera 'left_wrist'"):
        policy.act(obs)
    policy.close()
