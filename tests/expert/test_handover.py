"""The handover through the table (rsb_mj.expert.handover) on shipped goal files: where the
other arm places the mover, and where the holding arm reaches lower instead."""

from __future__ import annotations

import numpy as np

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.collision import GRAZE_CLEARANCE, fixture_geoms
from rsb_mj.expert.pick_place import PickPlaceExpert

from .goal_play import LIBERO, TASKS, play

TOMATO_ON_CABINET = (
    "robustness_static_distractors/level_2/"
    "pick_the_tomato_on_the_table_and_place_it_on_the_bowl.bddl"
)


def test_an_object_only_the_other_arm_can_place_is_handed_over_on_the_table():
    """The tomato lies at the right arm's side; the bowl stands on the white cabinet, its
    top 0.28 m over the table, where only the left arm reaches above it. The right arm sets
    the tomato down between the arms, the left one takes it there and lowers it in (seed 0).
    Its grasp keeps 1 cm from the cabinet from the pre-grasp down (the first closing tried
    put the gripper 0.0 mm from it, and on an AMD EPYC the gripper caught its edge)."""
    env = GoalEnv(TASKS / "vla_arena" / TOMATO_ON_CABINET, cameras=())
    try:
        obs, info = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        cab = env.model.body("white_cabinet_1").id
        cabinet = [g for g in fixture_geoms(env.model, [0]) if env.model.geom_bodyid[g] == cab]
        assert cabinet
        start = env.data.body("tomato_1").xpos.copy()
        terminated = truncated = False
        steps, sides, gap = 0, [], 1.0
        while not (terminated or truncated):
            obs, _, terminated, truncated, info = env.step(expert.act(obs))
            steps += 1
            if not sides or sides[-1] != expert.side:
                sides.append(expert.side)
            if expert.side == "left" and expert.phase in ("descend", "close"):
                q = expert.arm.q(env.data)
                gap = min(gap, expert.arm.checker.gap(q, cabinet, 0.05))
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert sides == ["right", "left"]
        assert start[0] > 0.25  # on the right arm's side
        assert expert.warnings[0] == "handed over to the left arm at [0.01, -0.14]"
        tomato, bowl = env.data.body("tomato_1").xpos, env.data.body("bowl_1").xpos
        assert np.linalg.norm(tomato[:2] - bowl[:2]) < 0.03 and tomato[2] > bowl[2]
        assert gap >= GRAZE_CLEARANCE
        assert steps == 390
    finally:
        env.close()


def test_a_book_goes_lower_over_the_caddy_where_the_carry_height_is_out_of_reach():
    """The caddy's right compartment is 0.51 m from both waists; with the book held by its
    top, the pose 7-15 cm over the caddy's top is out of reach, 3 cm over it is not: the
    arm that holds the book places it itself, no handover (seed 0)."""
    name = "libero_90/STUDY_SCENE2_pick_up_the_book_and_place_it_in_the_right_compartment"
    env = GoalEnv(LIBERO / f"{name}_of_the_caddy.bddl", cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        info, steps = play(env, expert, obs)
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert expert.side == "left"
        assert not [w for w in expert.warnings if w.startswith("handed over")]
        assert steps == 148
    finally:
        env.close()


BOWL_INTO_BOTTOM_DRAWER = (
    "libero_10/KITCHEN_SCENE4_put_the_black_bowl_in_the_bottom_drawer_of_the_cabinet_and_close_it"
)


def test_a_tight_spot_between_a_cabinet_and_a_rack_takes_the_handover():
    """libero_10's bowl into the bottom drawer (seed 1): the right arm takes the bowl, the
    moved cabinet's drawer opens toward the left arm, out of the right arm's reach. Between
    the cabinet, its open drawer and the wine rack no spot keeps 4 cm around the bowl's
    corners within 0.50 m of both waists; the tight one (its 5.35 cm half width and 2 cm,
    0.52 m) does: the left arm takes the bowl there, puts it into the drawer and presses the
    drawer home."""
    env = GoalEnv(LIBERO / f"{BOWL_INTO_BOTTOM_DRAWER}.bddl", cameras=())
    try:
        obs, _ = env.reset(seed=1)
        expert = PickPlaceExpert(env)
        info, steps = play(env, expert, obs)
        assert info["is_success"], expert.failure
        assert "handed over to the left arm at [0.03, -0.11]" in expert.warnings
        joint = env.model.joint("white_cabinet_1/bottom_level")
        assert env.data.qpos[joint.qposadr[0]] > 0.0
        assert steps < 600
    finally:
        env.close()


def test_a_mover_out_of_the_inserting_arms_reach_is_taken_by_the_other_arm():
    """libero_10's mug into the microwave (seed 0): the moved microwave opens toward the
    left arm, which reaches no rim grasp of the mug at the right arm's side (0.15 m short);
    the right arm takes it and sets it down for the left one, which lays it in the
    microwave and shuts the door within the 600 steps."""
    name = "libero_10/KITCHEN_SCENE6_put_the_yellow_and_white_mug_in_the_microwave_and_close_it"
    env = GoalEnv(LIBERO / f"{name}.bddl", cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        info, steps = play(env, expert, obs)
        assert expert.warnings[:2] == [
            "approach: the left arm reaches no grasp; the right arm takes 'white_yellow_mug_1'",
            "handed over to the left arm at [0.01, 0.13]",
        ]
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert steps == 580
    finally:
        env.close()
