"""Scoring on the real MuJoCo environment's signals (teleported blocks and cubes, turned
plates, closed grippers)."""

import mujoco
import numpy as np
import pytest

from rsb_mj.episodes import sample_episode
from rsb_mj.scoring import EpisodeScorer
from rsb_mj.suites import get_suite


@pytest.fixture(scope="module")
def env():
    from rsb_mj.env import RsbEnv

    suite = get_suite("RSB-Math-4")
    e = RsbEnv(suite.path, suite=suite.name, cameras=())
    yield e
    e.close()


def _reset(env, seed=5):
    episode = sample_episode(env.problem, suite="RSB-Math-4", split="eval", index=0, seed=seed)
    obs, info = env.reset(options={"episode": episode})
    scorer = EpisodeScorer.for_problem(env.problem, tuple(info["candidates"]), episode.target)
    return episode, obs, scorer


def _teleport(env, body, xy):
    adr = env.model.joint(f"{body}/free").qposadr[0]
    env.data.qpos[adr : adr + 2] = xy
    env.data.qvel[:] = 0.0
    mujoco.mj_forward(env.model, env.data)


def test_target_teleported_into_the_zone_is_in_and_released_but_not_a_success(env):
    episode, obs, scorer = _reset(env)
    _teleport(env, episode.target, env.scene.zone_center[:2])
    hold = obs["state"].copy()
    for _ in range(5):
        obs, _, _, _, info = env.step(hold)
        out = scorer.update(info["signals"])
    assert out.in_zone == [episode.target] and out.goal_final
    assert not out.grasped and not out.success  # never grasped: pushing does not count


def test_closing_both_grippers_on_nothing_is_no_grasp(env):
    _, obs, scorer = _reset(env, seed=6)
    closed = obs["state"].copy()
    closed[[6, 13]] = 0.0
    for _ in range(10):
        obs, _, _, _, info = env.step(closed)
        out = scorer.update(info["signals"])
    assert info["signals"]["gripper_cmd"].max() == 0.0
    assert np.all(info["signals"]["gripper_open"] < 0.2)
    assert not out.grasped and out.in_zone == [] and out.steps == 10


@pytest.fixture(scope="module")
def a2a_env():
    from rsb_mj.env import RsbEnv

    suite = get_suite("A2A-Color")
    e = RsbEnv(suite.path, suite=suite.name, cameras=())
    yield e
    e.close()


def _settle(env, steps=5):
    hold = env.state()
    for _ in range(steps):
        *_, info = env.step(hold)
    return info


def test_a_cube_on_a_plate_is_on_it_in_the_plates_frame(a2a_env):
    from rsb_mj.tables.episode_source import load_episode

    env = a2a_env
    env.reset(options={"episode": load_episode("A2A-Color", "eval", 0)})
    plate_b = env.data.xpos[env.model.body("plate_b").id].copy()
    _teleport(env, "cube", plate_b[:2] + np.array([0.07, 0.0]))  # 1 cm inside the long side
    on = _settle(env)["signals"]["on"]
    assert on.shape == (25, 1, 2) and on[-1, 0].tolist() == [False, True]
    # The plate turned a quarter about z: 7 cm along its short side is off it.
    adr = env.model.joint("plate_b/free").qposadr[0]
    env.data.qpos[adr + 3 : adr + 7] = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]
    _teleport(env, "cube", plate_b[:2] + np.array([0.07, 0.0]))
    assert _settle(env)["signals"]["on"][-1, 0].tolist() == [False, False]
    _teleport(env, "cube", plate_b[:2] + np.array([0.0, 0.07]))  # along its long side now
    assert _settle(env)["signals"]["on"][-1, 0].tolist() == [False, True]


def test_on_over_candidates_and_a_named_object_rows_only_the_named_one():
    """A task whose :grasp ranges over the plates and whose goal puts the cube on ?answer
    records its signals over (plate_a, plate_b, cube); only the cube can be on a plate."""
    from rsb_mj.env import RsbEnv
    from rsb_mj.lang import parse_text
    from rsb_mj.tables.episode_source import load_episode

    text = get_suite("A2A-Color").path.read_text()
    text = text.replace("(:grasp (Grasped cube))", "(:grasp (Grasped ?c - candidate))")
    env = RsbEnv(parse_text(text, "mixed.bddl"), cameras=())
    try:
        env.reset(options={"episode": load_episode("A2A-Color", "eval", 0)})
        plate_b = env.data.xpos[env.model.body("plate_b").id]
        _teleport(env, "cube", plate_b[:2])
        on = _settle(env)["signals"]["on"]
        assert on.shape == (25, 3, 2)
        assert on[-1].tolist() == [[False, False], [False, False], [False, True]]
        assert env.scorer.plan.objects == ("plate_a", "plate_b", "cube")
    finally:
        env.close()
