"""Hazards of a task's :cost and the checker's clearance and carrying (expert/hazards.py,
expert/collision.py), and how a goal's placement keeps their cost low (the lift away from a
hazard, the spot of a region clear of it)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.env.rsb_env import GoalEnv, RsbEnv
from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.hazards import HAZARD_MARGIN, hazard_clearances, hazard_objects
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.lang import load_task
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.aloha import arm_joints

from .goal_play import play


def test_hazards_are_the_static_objects_a_cost_names():
    l2 = load_task(tasks_dir() / "rsb_math_4_l2.bddl")
    assert hazard_objects(l2) == {"bottle_1": 0.0}  # cart_1 moves: not a hazard
    assert hazard_objects(load_task(tasks_dir() / "rsb_math_4_safety.bddl")) == {}
    assert hazard_objects(load_task(tasks_dir() / "rsb_math_4.bddl")) == {}


def test_a_fixture_that_a_cost_names_is_a_hazard_with_its_distance():
    """VLA-Arena's stove is a fixture: ``(CheckGripperDistance flat_stove_1 0.05)`` makes it
    a hazard (it was not one, and the fingers came within 5 cm of it); the table never is."""
    name = "vla_arena/safety_hazard_avoidance/level_0/"
    name += "pick_up_the_tomato_and_place_it_on_the_white_bowl_with_the_stove_turned_on.bddl"
    problem = load_task(tasks_dir() / name)
    assert hazard_objects(problem) == {"tomato_1": 0.05, "flat_stove_1": 0.05}


def test_clearance_and_carrying_in_the_checker():
    env = RsbEnv(tasks_dir() / "rsb_math_4_l2.bddl", cameras=())
    try:
        env.reset(seed=4)
        m, d = env.model, env.data
        clear = hazard_clearances(m, env.problem)
        bottle = m.body("bottle_1").id
        assert set(clear) == {g for g in range(m.ngeom) if m.geom_bodyid[g] == bottle}
        assert set(clear.values()) == {HAZARD_MARGIN}
        checker = CollisionChecker(m, arm_joints("right"))
        checker.set_scene(d)
        q = d.qpos[checker.qpos_adr].copy()
        assert not checker.in_collision(q)
        checker.keep_clear({g: 5.0 for g in clear})  # 5 m: every pose is too close
        assert checker.in_collision(q)
        checker.keep_clear({})
        block = m.body("block_a").id
        checker.carry(block, d)
        q2 = q + np.array([0.3, 0.0, 0.0, 0.0, 0.0, 0.0])
        checker.in_collision(q2)
        scratch = checker._data
        link = checker._carried[1]
        rel = d.xmat[link].reshape(3, 3).T @ (d.xpos[block] - d.xpos[link])
        want = scratch.xpos[link] + scratch.xmat[link].reshape(3, 3) @ rel
        np.testing.assert_allclose(scratch.xpos[block], want, atol=1e-9)
        assert not np.allclose(scratch.xpos[block], d.xpos[block])
        checker.carry(None)
        checker.set_scene(d)  # the scene is retaken before every plan
        checker.in_collision(q2)
        np.testing.assert_allclose(scratch.xpos[block], d.xpos[block], atol=1e-12)
        mujoco.mj_forward(m, d)
    finally:
        env.close()


def test_only_the_expert_keeps_clear_of_the_hazards():
    from rsb_mj.policies.scripted import ExpertPolicy, NearestPolicy, RandomGraspPolicy

    assert (ExpertPolicy.safe, NearestPolicy.safe, RandomGraspPolicy.safe) == (True, False, False)
    env = RsbEnv(tasks_dir() / "rsb_math_4_l2.bddl", cameras=())
    try:
        obs, _ = env.reset(seed=4)
        clear = hazard_clearances(env.model, env.problem)
        safe = PickPlaceExpert(env, env.episode.target)
        safe.act(obs)
        assert safe.arm.checker.clearances == clear and safe._ignored == set()
        env.reset(seed=4)
        blind = PickPlaceExpert(env, env.episode.target, safe=False)
        blind.act(obs)
        assert blind.arm.checker.clearances == {} and blind._ignored == set(clear)
    finally:
        env.close()


@pytest.mark.slow
def test_done_when_the_expert_is_safe_and_nearest_is_not(tmp_path):
    """rsb eval --suite RSB-Math-4-L2 --policy expert --policy nearest --episodes 20."""
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.evaluation.runner import EvalConfig, run_eval

    config = EvalConfig(
        suites=("RSB-Math-4-L2",),
        policies=("expert", "nearest"),
        episodes=20,
        out=tmp_path,
        workers=2,
        progress=False,
    )
    by_policy = {m.policy: m for m in summarize(run_eval(config))}
    expert, nearest = by_policy["expert"], by_policy["nearest"]
    assert expert.tsr.value >= 0.95
    assert expert.cost.mean < nearest.cost.mean
    assert nearest.cost.mean > 0


def test_a_hazard_distance_read_as_0_is_read_again_under_smaller_cutoffs():
    """The lemon beside the stove (seed 1), the left gripper closed on it: MuJoCo's convex
    distance reads 0.0 between the right finger's collision mesh and the stove's box under a
    6.5 cm cutoff, though they are 3-4 cm apart (3 cm under a 3 cm cutoff, capped, is right);
    the checker of a goal's placements reads the distance again under halved cutoffs."""
    from pathlib import Path

    name = "vla_arena/safety_hazard_avoidance/level_0/"
    name += "pick_up_the_lemon_and_place_it_on_the_ramekin_with_the_stove_turned_on.bddl"
    env = GoalEnv(Path(tasks_dir() / name), cameras=(), max_steps=600)
    try:
        obs, _ = env.reset(seed=1)
        expert = PickPlaceExpert(env)
        while expert.phase != "close":
            obs, *_ = env.step(expert.act(obs))
        m, d = env.model, env.data
        stove = next(
            g
            for g in expert.world.hazards
            if m.body(int(m.geom_bodyid[g])).name == "flat_stove_1" and m.geom_size[g][2] > 0.02
        )
        mesh = next(
            g
            for g in range(m.ngeom)
            if m.body(int(m.geom_bodyid[g])).name == "left/right_finger_link"
            and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH
            and m.geom_contype[g]
        )
        assert mujoco.mj_geomDistance(m, d, mesh, stove, 0.065, None) == 0.0
        assert mujoco.mj_geomDistance(m, d, mesh, stove, 0.03, None) == 0.03
        checker = expert.arm.checker
        assert checker.robust
        checker.set_scene(d)
        checker.keep_clear({stove: 0.065}, fingers=[mesh])
        gap = checker.hazard_gaps(checker._data.qpos[checker.qpos_adr].copy())[stove]
        assert 0.03 <= gap < 0.04
        assert checker.shortfall(checker._data.qpos[checker.qpos_adr].copy()) == 0.065 - gap
    finally:
        env.close()


def test_an_object_across_the_middle_is_lifted_lower_where_the_carry_height_is_out_of_reach():
    """The lemon lies 9 cm right of the table's middle and the ramekin on the left: the left
    arm takes it, and the straight lift to the carry height there is out of its reach (the
    IK misses by 1.8 mm); a lower lift is not, and the lemon gets to the ramekin (seed 0).
    The lemon touches the stove, a hazard of the file's :cost: the lower lift also moves it
    5 cm away from the stove as it rises (165 steps before that, 166 now)."""
    name = "safety_hazard_avoidance/level_0/"
    name += "pick_up_the_lemon_and_place_it_on_the_ramekin_with_the_stove_turned_on.bddl"
    env = GoalEnv(tasks_dir() / "vla_arena" / name, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        start = env.data.body("lemon_1").xpos.copy()
        info, steps = play(env, expert, obs)
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert expert.side == "left" and start[0] > 0.05
        assert steps == 166
    finally:
        env.close()


def test_the_lemon_goes_between_the_teapots_without_touching_them():
    """VLA-Arena's lemon "between the teapots", seed 0: the expert used to lower it at the
    region's centre, its fingers on both teapots (cost 18: 4 + 4 steps of
    CheckGripperContact and teapot_1 moved, Fall 10); it now releases it at a spot of the
    region where the lowered gripper and lemon touch no teapot: cost 0, still a success."""
    name = "safety_dynamic_obstacles/level_0/push_the_lemon_to_the_region_between_the_teapots.bddl"
    env = GoalEnv(tasks_dir() / "vla_arena" / name, cameras=(), max_steps=600)
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        cost, done, info = 0.0, False, {}
        while not done:
            obs, _, terminated, truncated, info = env.step(expert.act(obs))
            cost += info["cost"]
            done = terminated or truncated
        assert info["is_success"], expert.failure
        assert cost + env.end_cost() == 0.0
        assert env.data.body("teapot_1").xpos[2] > 0  # standing, not knocked off
    finally:
        env.close()
