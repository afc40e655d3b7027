"""The one scripted expert (rsb_mj.expert.pick_place): the answer of a question task, and a
goal's placements on shipped LIBERO and VLA-Arena files (rim and handle grasps, riders)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.datasets.demos import Recorder
from rsb_mj.env import RsbEnv
from rsb_mj.errors import ExpertError
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.expert import PickPlaceExpert
from rsb_mj.policies.scripted import ExpertPolicy
from rsb_mj.tables.episode_source import load_episode, load_problem, task_path

from .goal_play import LIBERO, TASKS, assert_solved, run_goal


@pytest.fixture(scope="module")
def env():
    env = RsbEnv(task_path("RSB-Math-4"), suite="RSB-Math-4", cameras=())
    yield env
    env.close()


def _rows_by_side(n=12):
    rows = {}
    for i in range(n):
        ep = load_episode("RSB-Math-4", "eval", i)
        side = "right" if ep.layout[ep.target].x >= 0 else "left"
        rows.setdefault(side, ep)
    return rows


def _run(env, episode):
    """The expert policy's record and recorded actions on ``episode``."""
    recorder = Recorder()
    problem = load_problem("RSB-Math-4")
    policy = ExpertPolicy()
    record = Rollout(env, policy, episode, problem, max_steps=400, on_step=recorder).run()
    return record, np.stack(recorder.actions), policy


@pytest.mark.parametrize("side", ["left", "right"])
def test_places_the_target_with_the_arm_on_its_side(env, side):
    episode = _rows_by_side()[side]
    record, actions, policy = _run(env, episode)
    assert record.failure_reason is None
    assert record.success and record.grasped and record.termination == "success"
    assert record.choice == episode.target
    assert record.steps < record.max_steps == 400
    # the episode ends once success is decided (0.5 s resting in the zone, released): the
    # expert is retreating or going home by then
    assert policy.status().phase in ("retreat", "home", "done")
    # the actions stay inside the action space, and the idle arm does not move
    space = env.action_space
    assert np.all(actions >= space.low - 1e-9) and np.all(actions <= space.high + 1e-9)
    idle = slice(7, 13) if side == "left" else slice(0, 6)
    assert np.ptp(actions[:, idle], axis=0).max() < 1e-12
    # the target rests in the zone, the other candidates where they were
    center = env.scene.zone_center
    pos = env.data.xpos[env.model.body(episode.target).id]
    assert np.abs(pos[:2] - center[:2]).max() < 0.03
    for name, pose in episode.layout.items():
        if name != episode.target:
            xy = env.data.xpos[env.model.body(name).id][:2]
            assert np.linalg.norm(xy - env.scene.table_to_world(pose.x, pose.y)[:2]) < 0.005


def test_same_episode_same_actions(env):
    episode = load_episode("RSB-Math-4", "eval", 0)
    runs = [_run(env, episode)[1] for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])


def test_unknown_target_lists_the_candidates(env):
    env.reset(options={"episode": load_episode("RSB-Math-4", "eval", 0)})
    expert = PickPlaceExpert(env, "block_z")
    with pytest.raises(
        ExpertError,
        match=r"target 'block_z' is not a candidate; valid choices: "
        r"block_a, block_b, block_c, block_d",
    ):
        expert.act()


def test_reset_starts_a_fresh_plan(env):
    obs, info = env.reset(options={"episode": load_episode("RSB-Math-4", "eval", 1)})
    expert = PickPlaceExpert(env, env.episode.mapping["A"])
    first = expert.act(obs)
    for _ in range(5):
        obs, *_ = env.step(expert.act(obs))
    obs, info = env.reset(options={"episode": load_episode("RSB-Math-4", "eval", 1)})
    expert.reset(env, obs, info)
    assert expert.phase == "start" and not expert.done
    np.testing.assert_array_equal(expert.act(obs), first)


def test_the_goal_says_what_moves_and_where(env):
    """RSB's (In ?answer zone) moves the candidate into the zone; Act2Answer's
    (On cube ?answer) moves the cube onto the candidate plate, with the plate's arm when the
    cube starts on the table, with the left arm holding it since reset otherwise."""
    obs, _ = env.reset(options={"episode": load_episode("RSB-Math-4", "eval", 0)})
    expert = PickPlaceExpert(env, env.episode.target)
    expert.act(obs)
    assert expert.mover == env.episode.target
    np.testing.assert_array_equal(expert.place_center, env.scene.zone_center)
    for start_held in (False, True):
        a2a = RsbEnv(task_path("A2A-Color"), suite="A2A-Color", cameras=(), start_held=start_held)
        try:
            obs, _ = a2a.reset(options={"episode": load_episode("A2A-Color", "eval", 0)})
            for plate in ("plate_a", "plate_b"):
                expert = PickPlaceExpert(a2a, plate)
                expert.act(obs)
                xy = a2a.data.xpos[a2a.model.body(plate).id][:2]
                side = "left" if start_held else ("right" if xy[0] >= 0 else "left")
                assert (expert.mover, expert.side) == ("cube", side)
                assert expert.phase == ("carry" if start_held else "approach")
                np.testing.assert_array_equal(expert.place_center[:2], xy)
                assert expert.place_half.tolist() == [0.08, 0.06]
        finally:
            a2a.close()


def test_a_mug_full_of_water_balls_is_carried_to_the_cabinet():
    """VLA-Arena's state-preservation files stack water balls in the mug, and the cost names
    them: the carry ignores them (they ride in the mug) instead of finding no path."""
    name = "safety_object_state_preservation/level_1/"
    name += "pick_up_the_green_mug_on_the_table_and_place_it_on_the_wooden_cabinet.bddl"
    assert_solved(TASKS / "vla_arena" / name, 0)


@pytest.mark.parametrize(
    ("name", "mover", "place"),
    [
        # a hollow bowl, taken by its rim, released onto the plate's floor
        (
            "libero_90/KITCHEN_SCENE1_put_the_black_bowl_on_the_plate.bddl",
            "akita_black_bowl_1",
            "plate_1",
        ),
        # the frying pan, taken by its handle
        (
            "libero_90/KITCHEN_SCENE3_put_the_frying_pan_on_the_stove.bddl",
            "chefmate_8_frypan_1",
            None,
        ),
    ],
)
def test_rim_and_handle_grasps_carry_wide_objects_to_their_place(name, mover, place):
    env, expert, info = run_goal(LIBERO / name, seed=0)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
        if place is not None:  # LIBERO's On: xy within 0.03 m, above, touching
            a, b = env.data.body(mover).xpos, env.data.body(place).xpos
            assert np.linalg.norm(a[:2] - b[:2]) < 0.03 and a[2] > b[2]
    finally:
        env.close()
