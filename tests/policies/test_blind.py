"""Language-blind baselines: each choice follows its rule on real reset scenes, and try-all
really moves on to the next candidate (raw signals of a real rollout)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from rsb_mj.env import RsbEnv
from rsb_mj.env.views import SimView, policy_seed
from rsb_mj.errors import PolicyError
from rsb_mj.policies import (
    BUILTIN,
    FixedLetterPolicy,
    FixedPositionPolicy,
    NearestToZonePolicy,
    TryAllPolicy,
    make_policy,
)
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode

ROWS = range(12)


@pytest.fixture(scope="module", params=["RSB-Math-4", "RSB-General-10"])
def env(request):
    suite = get_suite(request.param)
    env = RsbEnv(suite.path, suite=suite.name, split="eval", cameras=())
    yield env
    env.close()


def _reset(env, index, policy):
    """Reset ``env`` on eval row ``index``; the view the runner hands a simulator policy."""
    episode = load_episode(env.suite, "eval", index)
    obs, info = env.reset(options={"episode": episode})
    view = SimView(
        model=env.model,
        data=env.data,
        scene=env.scene,
        candidates=tuple(info["candidates"]),
        control_hz=float(CONTROL_HZ),
        instruction=info["instruction"],
        seed=policy_seed(episode.seed, policy.name),
        letters={cand: letter for letter, cand in episode.mapping.items()},
    )
    return episode, view, obs, info


def _zone_distance(env, episode, cand):
    """Table-frame distance [m] of the row's layout pose of ``cand`` to the zone center."""
    pose, center = episode.layout[cand], env.scene.zone_center
    return math.hypot(pose.x - center[0], pose.y - center[1])


def test_builtin_names():
    assert {
        name: type(make_policy(name))
        for name in ("try-all", "nearest-to-zone", "fixed-letter", "fixed-position")
    } == {
        "try-all": TryAllPolicy,
        "nearest-to-zone": NearestToZonePolicy,
        "fixed-letter": FixedLetterPolicy,
        "fixed-position": FixedPositionPolicy,
    }
    for name in ("try-all", "nearest-to-zone", "fixed-letter", "fixed-position"):
        cls = BUILTIN[name]
        assert cls.simulator is True and cls.privileged is False and cls.cameras == ()


def test_nearest_to_zone_picks_the_row_layout_nearest_the_zone_center(env):
    policy, picks = NearestToZonePolicy(), []
    for index in ROWS:
        episode, view, obs, info = _reset(env, index, policy)
        policy.reset(view, obs, info)
        dist = {c: _zone_distance(env, episode, c) for c in episode.layout}
        assert policy.target == min(dist, key=dist.get)
        assert dist[policy.target] < sorted(dist.values())[1]  # no near tie in these rows
        picks.append(policy.target)
    assert len(set(picks)) > 1


def test_fixed_letter_picks_the_block_showing_a(env):
    policy, picks = FixedLetterPolicy(), []
    for index in ROWS:
        episode, view, obs, info = _reset(env, index, policy)
        policy.reset(view, obs, info)
        assert policy.target == episode.mapping["A"]
        picks.append(policy.target)
    assert len(set(picks)) > 1


def test_fixed_position_picks_the_leftmost_block(env):
    policy, picks = FixedPositionPolicy(), []
    for index in ROWS:
        episode, view, obs, info = _reset(env, index, policy)
        policy.reset(view, obs, info)
        xs = {c: pose.x for c, pose in episode.layout.items()}
        assert policy.target == min(xs, key=xs.get)
        assert xs[policy.target] < 0  # the robot's left half of the table
        picks.append(policy.target)
    assert len(set(picks)) > 1


def test_fixed_letter_needs_the_letters_of_a_sim_view(env):
    policy = FixedLetterPolicy()
    _, view, obs, info = _reset(env, 0, policy)
    bare = replace(view, letters={})
    with pytest.raises(PolicyError, match=r"fixed-letter: the view has no candidate letters"):
        policy.reset(bare, obs, info)


def test_try_all_orders_by_zone_distance_and_ignores_the_instruction(env):
    policy = TryAllPolicy()
    episode, view, obs, info = _reset(env, 3, policy)
    policy.reset(view, obs, info)
    dist = [_zone_distance(env, episode, c) for c in policy.order]
    assert sorted(policy.order) == sorted(episode.layout) and dist == sorted(dist)
    muted = replace(view, instruction="")
    again = TryAllPolicy()
    again.reset(muted, obs, info)
    assert again.order == policy.order and again.tried == [policy.order[0]]


def _held(signals):
    """(N,) candidates held this step: touching a finger of a gripper commanded closed
    while lifted at least 1 cm above their resting height."""
    closed = signals["gripper_cmd"] < 0.5  # (S, 2)
    touch = (signals["contact"] & closed[:, None, :]).any(axis=2)  # (S, N)
    return (touch & (signals["lift"] >= 0.01)).any(axis=0)


def test_try_all_grasps_one_candidate_after_another():
    suite = get_suite("RSB-Math-4")
    env = RsbEnv(suite.path, suite=suite.name, split="eval", cameras=())
    try:
        policy = TryAllPolicy()
        _, view, obs, info = _reset(env, 0, policy)
        policy.reset(view, obs, info)
        cands = list(info["candidates"])
        grasped, first_in_zone = [], None
        for step in range(1, 801):
            obs, _, _, _, info = env.step(policy.act(obs))
            for n in np.flatnonzero(_held(info["signals"])):
                if cands[n] not in grasped:
                    grasped.append(cands[n])
            if (
                first_in_zone is None
                and grasped
                and info["signals"]["in_zone"][-1][cands.index(grasped[0])]
            ):
                first_in_zone = (step, len(grasped))
            if policy.done:
                break
    finally:
        env.close()
    assert policy.done and policy.tried == policy.order
    # every candidate was lifted, in the policy's order; the first was placed in the zone
    # before the second was touched
    assert grasped == policy.order
    assert first_in_zone is not None and first_in_zone[1] == 1
