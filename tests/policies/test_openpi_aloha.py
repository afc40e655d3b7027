"""The ``aloha`` convention against openpi's ALOHA transforms, in numbers and in the real env.

The fake server's ``aloha`` mode applies openpi's ``AlohaInputs``/``AlohaOutputs`` state and
action transforms (``adapt_to_pi=True``, transcribed from openpi's ``aloha_policy.py`` in
``tests/policies/openpi_server.py``) around a model that echoes its state as its action.
"""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.env.views import PolicyEnv
from rsb_mj.policies import OpenPiPolicy
from rsb_mj.policies.aloha_convention import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    PI_ANGLE_LOW,
    PI_OPEN,
    PUPPET_JOINT_CLOSE,
    PUPPET_JOINT_OPEN,
    AlohaConvention,
    RsbConvention,
    finger_position,
    horn_angle,
)
from rsb_mj.suites import get_suite

from .openpi_server import FakeOpenPiServer, aloha_decode_state, aloha_encode_actions


def _server_echo(states: np.ndarray) -> np.ndarray:
    """What an openpi ALOHA server whose model echoes its state returns, one row per state
    (float32 on the wire both ways, as in a real exchange)."""
    rows = [aloha_decode_state(s.astype(np.float32).astype(np.float64)) for s in states]
    return aloha_encode_actions(np.stack(rows)).astype(np.float32)


def _states(grippers: np.ndarray) -> np.ndarray:
    states = np.tile(
        np.array([0.1, -0.9, 0.7, 0.2, 1.1, -0.3, 0, -0.1, -0.8, 0.6, 0, 1.0, 0.4, 0]),
        (len(grippers), 1),
    )
    states[:, 6] = grippers
    states[:, 13] = grippers[::-1]
    return states


def test_the_issue_numbers_rsb_convention_moves_the_fingers():
    raw = _server_echo(_states(np.array([0.1, 0.25, 0.75])))
    np.testing.assert_allclose(raw[:, 6], [0.174, 0.310, 0.659], atol=5e-4)
    np.testing.assert_allclose(RsbConvention().actions_from_server(raw)[:, 6], raw[:, 6])


def test_aloha_convention_inverts_the_server_path_for_every_opening():
    """State out through ``state_to_server``, openpi's transforms around an echoing model,
    actions back: every opening comes back (float32 on the wire; the state path's arcsin
    flattens near fully open, hence 2e-5 there, 2e-6 below 0.99)."""
    grippers = np.linspace(0.0, 1.0, 1001)
    states = _states(grippers)
    convention = AlohaConvention()
    back = convention.actions_from_server(_server_echo(convention.state_to_server(states)))
    np.testing.assert_allclose(back, states, atol=2e-5)  # joints and grippers
    np.testing.assert_allclose(back[:990, 6], grippers[:990], atol=2e-6)


def test_aloha_convention_puts_rsb_grippers_in_pis_0_1_range():
    """The issue's numbers: rsb's raw scale put openpi's training targets at -1.17..0.94
    and a fine-tuned model's 0.3 / 0.6 came back as 0.237 / 0.668. In the aloha convention
    pi's gripper is g * PI_OPEN for the state and the action alike, so an ideal model's
    output comes back unchanged."""
    g = np.array([0.0, 0.3, 0.6, 1.0])
    rows = _states(g)
    convention = AlohaConvention()
    sent = convention.state_to_server(rows)
    pi_states = np.stack([aloha_decode_state(r.copy()) for r in sent])
    np.testing.assert_allclose(pi_states[:, 6], g * PI_OPEN, atol=1e-12)
    np.testing.assert_allclose(sent[:, 6], [0.599736, 0.786892, 0.926750, 1.0], atol=1e-6)
    actions = convention.actions_to_server(rows)
    np.testing.assert_allclose(actions[:, 6], [0.553378, 0.687684, 0.821991, 1.001067], atol=1e-6)
    targets = actions[:, 6] * (PUPPET_JOINT_OPEN - PUPPET_JOINT_CLOSE) + PUPPET_JOINT_CLOSE
    targets -= PI_ANGLE_LOW  # openpi's _gripper_from_angular_inv: the training target
    np.testing.assert_allclose(targets, g * PI_OPEN, atol=1e-12)
    assert round(PI_OPEN, 6) == 0.945653
    ideal = aloha_encode_actions(pi_states)  # a model that returns its (pi) state
    np.testing.assert_allclose(convention.actions_from_server(ideal)[:, 6], g, atol=1e-12)


def test_aloha_convention_maps_grippers_only_and_clips_them_to_0_1():
    state = np.arange(14.0) / 20
    sent = AlohaConvention().state_to_server(state)
    keep = [i for i in range(14) if i not in (6, 13)]
    np.testing.assert_array_equal(sent[keep], state[keep])
    assert AlohaConvention().state_to_server(np.full(14, 7.0))[6] == 1.0  # clipped to open
    closed = AlohaConvention().state_to_server(np.full(14, -1.0))[6]
    assert closed == pytest.approx(0.599736, abs=1e-6)
    actions = np.zeros((2, 14))
    actions[:, [6, 13]] = [[-5.0, 5.0], [0.5534, 1.0]]
    out = AlohaConvention().actions_from_server(actions)
    assert out[0, 6] == 0.0 and out[0, 13] == 1.0
    np.testing.assert_allclose(out[1, [6, 13]], [4.95e-5, 0.997618], atol=1e-6)
    assert sorted(CONVENTIONS) == ["aloha", "rsb"]
    assert DEFAULT_CONVENTION == "aloha"


def test_finger_position_inverts_the_horn_angle():
    x = np.linspace(0.01844, 0.058, 501)
    np.testing.assert_allclose(finger_position(horn_angle(x)), x, atol=1e-12)


@pytest.fixture(scope="module")
def env():
    e = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4", width=64, height=48)
    yield e
    e.close()


def _view(env: RsbEnv) -> PolicyEnv:
    return PolicyEnv(env.action_space, env.observation_space, ("a",), 20.0, "hold still")


def _echo(env, policy, obs, steps=100):
    """Run ``policy`` for ``steps`` control steps; return the states after each step."""
    states = []
    while len(states) < steps:
        for row in policy.act(obs):
            obs, *_ = env.step(row)
            states.append(obs["state"])
    return obs, np.array(states[:steps])


def test_echoing_the_state_through_openpi_transforms_holds_the_robot_for_100_steps(env):
    obs, info = env.reset(seed=0)
    preset = obs["state"].copy()
    preset[[6, 13]] = 0.25, 0.75  # half-shut fingers: where the two gripper scales differ
    for _ in range(40):
        obs, *_, info = env.step(preset)
    start = obs["state"].copy()
    np.testing.assert_allclose(start[[6, 13]], [0.25, 0.75], atol=1e-3)
    srv = FakeOpenPiServer("aloha")
    srv.start()
    try:
        policy = OpenPiPolicy("127.0.0.1", srv.port, horizon=5)  # convention "aloha"
        policy.reset(_view(env), obs, info)
        _, states = _echo(env, policy, obs)
        policy.close()
    finally:
        srv.stop()
    assert len(srv.seen) == 20
    assert np.abs(states - start).max() < 1e-3, np.abs(states - start).max(axis=0)


@pytest.mark.slow
def test_reset_pose_is_reached_and_held_in_the_real_env(env):
    obs, info = env.reset(seed=0)
    srv = FakeOpenPiServer("aloha", metadata={"reset_pose": [0, -1.5, 1.5, 0, 0, 0]})
    srv.start()
    try:
        policy = OpenPiPolicy("127.0.0.1", srv.port, horizon=5)
        policy.reset(_view(env), obs, info)
        for row in policy.act(obs):  # the reset move: 1 s there, 0.5 s hold
            obs, *_ = env.step(row)
        start = obs["state"].copy()
        target = np.array([0, -1.5, 1.5, 0, 0, 0, 1.0] * 2)
        np.testing.assert_allclose(start, target, atol=0.01)
        assert srv.seen == []
        _, states = _echo(env, policy, obs)
        policy.close()
    finally:
        srv.stop()
    assert np.abs(states - start).max() < 1e-3


def test_the_export_writes_and_names_the_aloha_convention(tmp_path):
    """``rsb export-lerobot``'s state and action are the aloha convention's, named in
    ``meta/info.json`` (a 3-step demo with half-open grippers, no cameras)."""
    pytest.importorskip("pyarrow", reason="the LeRobot export needs the lerobot-export extra")
    import json

    import pyarrow.parquet as pq

    from rsb_mj.datasets.demo_file import episode_filename, write_demo
    from rsb_mj.datasets.lerobot import export_lerobot
    from rsb_mj.tables.families import load_table

    ep = load_table("RSB-Math-4", "train")[0]
    states = _states(np.array([0.0, 0.3, 0.6]))
    actions = _states(np.array([0.3, 0.6, 1.0]))
    (tmp_path / "demos").mkdir()
    write_demo(tmp_path / "demos" / episode_filename(0), episode=ep, instruction=ep.instruction,
               states=states, actions=actions, images={}, attrs={"success": True})  # fmt: skip
    export_lerobot(tmp_path / "demos", tmp_path / "ds", version="2.1", cameras=())
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    assert info["rsb_convention"] == AlohaConvention().metadata()
    assert info["rsb_convention"]["name"] == DEFAULT_CONVENTION == "aloha"
    table = pq.read_table(tmp_path / "ds/data/chunk-000/episode_000000.parquet")
    written = np.array(table["action"].to_pylist())
    np.testing.assert_allclose(written[:, 6], [0.687684, 0.821991, 1.001067], atol=1e-6)
    np.testing.assert_allclose(written[:, 13], [1.001067, 0.821991, 0.687684], atol=1e-6)
    state = np.array(table["observation.state"].to_pylist())
    np.testing.assert_allclose(state[:, 6], [0.599736, 0.786892, 0.926750], atol=1e-6)
    back = AlohaConvention().actions_from_server(written)
    np.testing.assert_allclose(back, actions, atol=1e-6)  # float32 in the parquet
