"""The one-attempt protocol on the real MuJoCo scene: each way to game a grasp or a success.

Every case drives the real Aloha (the scripted expert's planner, or straight IK sweeps of a
gripper) and asserts the exact outcome of :class:`rsb_mj.scoring.EpisodeScorer`.
"""

import mujoco
import numpy as np
import pytest

from rsb_mj.expert import PickPlaceExpert
from rsb_mj.expert.arm import Arm
from rsb_mj.expert.grasp import top_down_rotation
from rsb_mj.scoring import EpisodeScorer
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode

SUITE = "RSB-Math-4"


@pytest.fixture(scope="module")
def env():
    from rsb_mj.env import RsbEnv

    e = RsbEnv(get_suite(SUITE).path, suite=SUITE, cameras=())
    yield e
    e.close()


def _start(env, index):
    episode = load_episode(SUITE, "eval", index)
    obs, info = env.reset(options={"episode": episode})
    scorer = EpisodeScorer.for_problem(env.problem, tuple(info["candidates"]), episode.target)
    return episode, obs, scorer


def _wrong(env, episode):
    return next(c for c in env.scene.candidates if c != episode.target)


def _run_expert(env, obs, scorer, target, *, until=None, steps=400):
    """Step the expert on ``target`` until it is done, or its phase is ``until``."""
    expert = PickPlaceExpert(env, target)
    for _ in range(steps):
        if expert.done or expert.phase == until:
            break
        obs, *_, info = env.step(expert.act(obs))
        scorer.update(info["signals"])
    return obs, expert


def _hold(env, obs, scorer, action, steps):
    for _ in range(steps):
        obs, *_, info = env.step(action)
        scorer.update(info["signals"])
    return obs, info


def _sweep(env, obs, scorer, side, start, end, *, grippers, closing, steps_per_cm=2):
    """Move ``side``'s TCP top-down in a straight line from ``start`` to ``end`` (world, m),
    fingers closing along ``closing``, grippers commanded ``grippers`` = (left, right);
    returns the observation and the number of control steps with a finger contact."""
    arm = Arm(env.model, side)
    rot = top_down_rotation(np.asarray(closing, dtype=float))
    action = obs["state"].copy()
    action[[6, 13]] = grippers
    q = arm.q(env.data)
    touched = 0
    points = np.linspace(start, end, int(np.linalg.norm(end - start) * 100) + 1)
    for point in points:
        arm.ik.sync(env.data)
        q = arm.ik.solve(point, rot, q).q
        action[arm.offset : arm.offset + 6] = q
        for _ in range(steps_per_cm):
            obs, *_, info = env.step(action)
            scorer.update(info["signals"])
            touched += int(info["signals"]["contact"].any())
    return obs, touched


def _side_of(env, body):
    xy = env.data.body(body).xpos[:2]
    arms = {s: Arm(env.model, s).base_xy(env.data) for s in ("left", "right")}
    return min(arms, key=lambda s: np.linalg.norm(arms[s] - xy))


def _push(env, index, *, pushing_closed, other_closed):
    episode, obs, scorer = _start(env, index)
    target = episode.target
    side = _side_of(env, target)
    p = env.data.body(target).xpos.copy()
    z = env.scene.table_top_z + 0.02
    start = p + np.array([0.0, -0.08, 0.1])  # in front of the block (robot side), high
    start[2] = z + 0.1
    low = start.copy()
    low[2] = z
    end = low + np.array([0.0, 0.2, 0.0])  # sweep away from the robot, through the block
    grippers = np.array([1.0, 1.0])
    grippers[0 if side == "left" else 1] = 0.0 if pushing_closed else 1.0
    grippers[1 if side == "left" else 0] = 0.0 if other_closed else 1.0
    # closed: both fingertips side by side hit the block; open: the front finger pushes it
    closing = (1.0, 0.0, 0.0) if pushing_closed else (0.0, 1.0, 0.0)
    obs, _ = _sweep(env, obs, scorer, side, start, low, grippers=grippers, closing=closing)
    obs, touched = _sweep(env, obs, scorer, side, low, end, grippers=grippers, closing=closing)
    moved = np.linalg.norm(env.data.body(target).xpos[:2] - p[:2])
    return scorer.finish(), touched, moved


@pytest.mark.parametrize(
    ("pushing_closed", "other_closed"), [(True, False), (False, True)], ids=["closed", "other"]
)
def test_a_push_is_never_a_grasp(env, pushing_closed, other_closed):
    out, touched, moved = _push(env, 3, pushing_closed=pushing_closed, other_closed=other_closed)
    assert touched > 0 and moved > 0.04, (touched, moved)  # really pushed 4+ cm
    assert (out.grasped, out.choice, out.success) == (False, None, False)


def test_a_wrong_first_grasp_fails_even_when_the_answer_is_placed_after(env):
    episode, obs, scorer = _start(env, 0)
    wrong = _wrong(env, episode)
    obs, expert = _run_expert(env, obs, scorer, wrong)
    assert expert.failure is None
    decided = scorer.outcome.decided_step
    assert (scorer.outcome.choice, scorer.outcome.decided, scorer.outcome.success) == (
        wrong,
        True,
        False,
    )
    obs, expert = _run_expert(env, obs, scorer, episode.target)  # a second try, placed
    assert expert.failure is None
    assert episode.target in [
        c for c in env.scene.candidates if env.data.body(c).xpos[2] < 1 and _in_zone(env, c)
    ]
    out = scorer.finish()
    assert (out.choice, out.success, out.decided_step) == (wrong, False, decided)


def _in_zone(env, body):
    xy = env.data.body(body).xpos[:2]
    return bool(np.all(np.abs(xy - env.scene.zone_center[:2]) <= env.scene.zone_half_size[:2]))


def test_knocking_the_answer_in_with_a_held_wrong_block_fails(env):
    episode, obs, scorer = _start(env, 1)
    wrong = _wrong(env, episode)
    obs, _ = _run_expert(env, obs, scorer, wrong, until="carry")  # wrong block in hand
    assert scorer.outcome.choice == wrong and scorer.outcome.decided
    # the answer ends in the zone, released, by any means: still a failure
    adr = env.model.joint(f"{episode.target}/free").qposadr[0]
    env.data.qpos[adr : adr + 2] = env.scene.zone_center[:2]
    mujoco.mj_forward(env.model, env.data)
    _hold(env, obs, scorer, obs["state"], 15)
    assert scorer.finish().success is False


def test_the_answer_held_above_the_zone_is_no_success(env):
    episode, obs, scorer = _start(env, 2)
    obs, expert = _run_expert(env, obs, scorer, episode.target, until="lower")
    assert expert.phase == "lower" and scorer.outcome.correct_choice
    held = obs["state"].copy()
    _, info = _hold(env, obs, scorer, held, 20)  # hovering above the zone
    assert not info["signals"]["in_zone"].any()
    out = scorer.finish()
    assert (out.choice, out.correct_choice, out.success, out.goal_final) == (
        episode.target,
        True,
        False,
        False,
    )


def test_the_answer_dropped_into_the_zone_and_resting_there_is_a_success(env):
    episode, obs, scorer = _start(env, 2)
    obs, _ = _run_expert(env, obs, scorer, episode.target, until="lower")
    release = obs["state"].copy()
    release[[6, 13]] = 1.0  # open both grippers 10 cm above the zone
    _hold(env, obs, scorer, release, 30)
    out = scorer.outcome
    assert (out.choice, out.success, out.decided, out.in_zone) == (
        episode.target,
        True,
        True,
        [episode.target],
    )


def test_the_expert_places_the_answer_and_is_decided_a_success(env):
    episode, obs, scorer = _start(env, 4)
    _run_expert(env, obs, scorer, episode.target)
    out = scorer.outcome
    assert (out.choice, out.correct_choice, out.success, out.decided) == (
        episode.target,
        True,
        True,
        True,
    )
    assert out.grasped_candidates == [episode.target]
