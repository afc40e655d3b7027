"""openpi:HOST:PORT against a local server speaking openpi's websocket protocol."""

import urllib.request

import numpy as np
import pytest

from rsb_mj.errors import EvalError, InfraError, PolicyError
from rsb_mj.policies import OpenPiPolicy, make_policy
from rsb_mj.policies.openpi import RESET_HOLD_S, resample_chunk

from .openpi_server import HORIZON, METADATA, FakeOpenPiServer, HoldStateServer


@pytest.fixture
def server():
    srv = HoldStateServer()
    srv.start()
    yield srv
    srv.stop()


def _obs(h=240, w=320, state=None):
    rng = np.random.default_rng(0)
    images = {
        cam: rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
        for cam in ("head", "left_wrist", "right_wrist")
    }
    return {"state": np.linspace(-1, 1, 14) if state is None else state, "images": images}


def _info(instruction="what is 2 plus 2? place the correct block"):
    return {"instruction": instruction, "candidates": ("a", "b")}


class _View:
    control_hz = 20.0


def test_observation_maps_to_the_aloha_format_and_chunks_come_back(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}:3")
    assert isinstance(policy, OpenPiPolicy) and policy.cameras == (
        "head", "left_wrist", "right_wrist",
    )  # fmt: skip
    policy.convention = "rsb"  # the hold server echoes the raw state
    obs = _obs()
    policy.reset(None, obs, _info())
    assert policy.metadata == METADATA
    chunk = policy.act(obs)
    assert chunk.shape == (3, 14) and chunk.dtype == np.float64
    np.testing.assert_array_equal(chunk[2], np.linspace(-1, 1, 14).astype(np.float32))
    (sent,) = server.seen
    assert sorted(sent) == ["images", "prompt", "state"]
    assert sent["prompt"] == "what is 2 plus 2? place the correct block"
    assert sent["state"].dtype == np.float32 and sent["state"].shape == (14,)
    assert sorted(sent["images"]) == ["cam_high", "cam_left_wrist", "cam_right_wrist"]
    high = sent["images"]["cam_high"]
    assert high.shape == (3, 224, 224) and high.dtype == np.uint8
    # 320x240 padded to 224x224: 168 rows of image, 28 black rows above and below
    assert not high[:, :28].any() and not high[:, 196:].any() and high[:, 28:196].any()
    policy.close()


def test_defaults_are_documented_values():
    p = make_policy("openpi:gpu-box:8000")
    assert (p.connect_timeout_s, p.request_timeout_s, p.retries, p.backoff_s) == (5.0, 30.0, 3, 0.5)
    assert (p.convention, p.control_hz, p.horizon, p.image_size) == ("aloha", None, 10, 224)


def test_full_horizon_by_default_is_ten_rows_capped_by_the_server_chunk(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info())
    assert policy.horizon == 10 and policy.act(_obs()).shape == (HORIZON, 14)
    policy.close()


def test_a_server_traceback_is_a_policy_error_naming_the_server(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info("boom"))
    with pytest.raises(
        PolicyError,
        match=rf"(?s)^openpi server ws://127.0.0.1:{server.port}: the policy raised:\n"
        r"Traceback .*ValueError: the policy exploded",
    ):
        policy.act(_obs())
    policy.close()


def test_health_check_answers(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as resp:
        assert resp.status == 200


def test_missing_cameras_are_named(server):
    policy = make_policy(f"openpi:127.0.0.1:{server.port}")
    policy.reset(None, _obs(), _info())
    obs = _obs()
    del obs["images"]["left_wrist"]
    with pytest.raises(EvalError, match=r"observation lacks camera 'left_wrist'"):
        policy.act(obs)
    policy.close()


def test_unknown_convention_lists_the_valid_ones():
    with pytest.raises(
        EvalError, match=r"^unknown openpi convention 'pi'; valid choices: aloha, rsb$"
    ):
        OpenPiPolicy("h", 1, convention="pi")


def test_reset_pose_from_metadata_moves_both_arms_in_one_second_then_holds():
    srv = FakeOpenPiServer("hold", metadata={"reset_pose": [0, -1.5, 1.5, 0, 0, 0]})
    srv.start()
    try:
        policy = OpenPiPolicy("127.0.0.1", srv.port, convention="rsb")
        state = np.zeros(14)
        state[[6, 13]] = 0.5
        policy.reset(_View(), _obs(state=state), _info())
        rows = policy.act(_obs(state=state))
        assert srv.seen == []  # no query before the reset move is done
        assert rows.shape == (20 + round(RESET_HOLD_S * 20), 14)
        target = np.array([0, -1.5, 1.5, 0, 0, 0, 1.0] * 2)
        np.testing.assert_allclose(rows[0], state + (target - state) / 20)
        np.testing.assert_allclose(rows[19:], np.tile(target, (len(rows) - 19, 1)))
        assert policy.act(_obs(state=target)).shape == (HORIZON, 14) and len(srv.seen) == 1
        policy.close()
    finally:
        srv.stop()


@pytest.mark.parametrize(
    "pose", [[0, -1.5, 1.5], [0, 1, 2, 3, 4, float("nan")], "home", [[0] * 6, [0] * 6]]
)
def test_a_bad_reset_pose_is_an_infra_error(pose):
    srv = FakeOpenPiServer("hold", metadata={"reset_pose": pose})
    srv.start()
    try:
        policy = OpenPiPolicy("127.0.0.1", srv.port)
        with pytest.raises(
            InfraError,
            match=rf"^openpi server ws://127.0.0.1:{srv.port}: metadata reset_pose must be 6 "
            r"finite arm joint angles \[rad\] \(applied to both arms\), got ",
        ):
            policy.reset(_View(), _obs(), _info())
        policy.close()
    finally:
        srv.stop()


def test_a_50_hz_chunk_is_resampled_to_20_hz_over_the_same_time():
    chunk = np.arange(25, dtype=np.float64)[:, None] * np.ones((1, 14))  # row k holds k
    out = resample_chunk(chunk, 50.0, 20.0, rows=25)
    # 25 rows at 50 Hz = 0.5 s = 10 rows at 20 Hz; env row j is the chunk at (j+1)*2.5 - 1
    np.testing.assert_allclose(out[:, 0], [1.5, 4, 6.5, 9, 11.5, 14, 16.5, 19, 21.5, 24])
    assert resample_chunk(chunk, 50.0, 20.0, rows=10).shape == (4, 14)
    assert resample_chunk(chunk, 50.0, 20.0, rows=1).shape == (1, 14)  # at least one row
    np.testing.assert_array_equal(resample_chunk(chunk, 20.0, 20.0, rows=7), chunk[:7])


def test_control_hz_50_returns_rows_at_the_env_rate(server):
    policy = OpenPiPolicy("127.0.0.1", server.port, horizon=5, control_hz=50.0, convention="rsb")
    policy.reset(_View(), _obs(), _info())
    assert policy.act(_obs()).shape == (2, 14)  # 5 rows at 50 Hz = 0.1 s = 2 rows at 20 Hz
    policy.close()


def test_spec_options_set_the_convention_rate_and_retries():
    p = make_policy("openpi:gpu-box:8000:25,convention=rsb,control_hz=50,retries=0")
    assert (p.host, p.port, p.horizon) == ("gpu-box", 8000, 25)
    assert (p.convention, p.control_hz, p.retries) == ("rsb", 50.0, 0)
    assert make_policy("openpi:gpu-box:8000,image_size=0").image_size == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openpi:h:1,fast=1", r"^policy 'openpi:h:1,fast=1': unknown option 'fast=1' "
         r"\(openpi:HOST:PORT\[:HORIZON\]\[,KEY=VALUE\.\.\.\]\); valid keys: convention, "
         r"control_hz, retries, image_size, reset_move_s$"),
        ("openpi:h:1,control_hz=fast", r"^policy 'openpi:h:1,control_hz=fast': control_hz "
         r"must be float, got 'fast'$"),
        ("openpi:h:1,convention=pi", r"^unknown openpi convention 'pi'; valid choices: "
         r"aloha, rsb$"),
        ("openpi:h:1,retries=-1", r"^policy openpi:h:1: horizon must be at least 1, "
         r"control_hz positive, retries, image_size, reset_move_s and backoff_s not negative "
         r"\(got horizon=10, control_hz=None, retries=-1, "),
        ("openpi:h:1:0", r"^policy 'openpi:h:1:0': port must be 1-65535 and horizon at least 1$"),
    ],
)  # fmt: skip
def test_bad_spec_options_are_explained(spec, message):
    with pytest.raises(EvalError, match=message):
        make_policy(spec)


def test_a_servers_text_reaches_the_record_with_the_option_it_names():
    from rsb_mj.env import RsbEnv
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.suites import get_suite
    from rsb_mj.tables.episode_source import load_episode

    episode = load_episode("RSB-Math-4", "eval", 0)
    rationale = f"<think>the answer is {episode.correct}</think>"
    srv = FakeOpenPiServer("hold", text=rationale)
    port = srv.start()
    env = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4")
    policy = make_policy(f"openpi:127.0.0.1:{port}")
    try:
        record = Rollout(env, policy, episode, env.problem, max_steps=12).run()
    finally:
        policy.close()
        env.close()
        srv.stop()
    assert (record.termination, record.text, record.text_choice) == (
        "step_limit",
        rationale,
        episode.correct,
    )
    assert len(srv.seen) == -(-12 // min(HORIZON, 10))  # one query per executed chunk
