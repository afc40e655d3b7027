"""The goal expert (rsb_mj.expert.goal_expert) on shipped LIBERO files: rim and handle grasps
of hollow stand-ins, and the order of placements."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.goal_expert import GRAZE_CLEARANCE, GoalExpert, fixture_geoms
from rsb_mj.expert.placements import placement_order, riders
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import Relation

TASKS = Path(__file__).resolve().parents[2] / "tasks"
LIBERO = TASKS / "libero"
AT = Span(line=1, column=1, end_line=1, end_column=2)


def _on(mover: str, place: str, predicate: str = "On", kind: str = "object") -> Relation:
    return Relation(predicate, mover, place, kind, AT)


def test_an_object_goes_to_its_place_before_another_is_put_on_it():
    stack = _on("bowl_1", "bowl_2")
    tray = _on("bowl_2", "wooden_tray_1_contain_region", "In", "site")
    assert placement_order((stack, tray)) == (tray, stack)
    assert placement_order((tray, stack)) == (tray, stack)


def test_what_stands_where_another_goes_is_moved_away_first():
    orange = _on("orange_1", "plate_1")
    tomato = _on("tomato_1", "bowl_1")
    init = (_on("tomato_1", "plate_1"),)
    assert placement_order((orange, tomato), init) == (tomato, orange)
    assert placement_order((orange, tomato)) == (orange, tomato)


def test_a_cycle_keeps_the_source_order():
    a, b = _on("a", "b"), _on("b", "a")
    assert placement_order((a, b)) == (a, b)


def test_what_stands_on_or_in_the_mover_at_init_rides_with_it():
    init = (
        _on("mug_1", "main_table_region", kind="region"),
        _on("ball_1", "mug_1"),
        _on("ball_2", "ball_1"),
        _on("ball_3", "mug_1_contain_region", "In", "site"),
        _on("apple_1", "plate_1"),
        _on("pear_1", "mug_1"),
    )
    objects = ("mug_1", "mug_10", "ball_1", "ball_2", "ball_3", "apple_1", "plate_1", "pear_1")
    assert riders("mug_1", init, objects) == {"ball_1", "ball_2", "ball_3", "pear_1"}
    # a goal mover is placed by the expert itself, not carried along
    assert riders("mug_1", init, objects, placed={"pear_1"}) == {"ball_1", "ball_2", "ball_3"}
    assert riders("mug_10", init, objects) == frozenset()
    assert riders("plate_1", init, objects) == {"apple_1"}


def test_a_mug_full_of_water_balls_is_carried_to_the_cabinet():
    """VLA-Arena's state-preservation files stack water balls in the mug, and the cost names
    them: the carry ignores them (they ride in the mug) instead of finding no path."""
    name = "safety_object_state_preservation/level_1/"
    name += "pick_up_the_green_mug_on_the_table_and_place_it_on_the_wooden_cabinet.bddl"
    env, expert, info = _run(TASKS / "vla_arena" / name, seed=0)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
    finally:
        env.close()


def _play(env: GoalEnv, expert: GoalExpert, obs: dict) -> tuple[dict, int]:
    """Step ``env`` with ``expert`` from ``obs`` to the episode's end: (last info, steps)."""
    terminated = truncated = False
    info: dict = {}
    steps = 0
    while not (terminated or truncated):
        obs, _, terminated, truncated, info = env.step(expert.act(obs))
        steps += 1
    return info, steps


def _run(path: Path, seed: int) -> tuple[GoalEnv, GoalExpert, dict]:
    env = GoalEnv(path, cameras=(), max_steps=400)
    obs, _ = env.reset(seed=seed)
    expert = GoalExpert(env)
    info, _ = _play(env, expert, obs)
    return env, expert, info


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
    env, expert, info = _run(LIBERO / name, seed=0)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
        if place is not None:  # LIBERO's On: xy within 0.03 m, above, touching
            a, b = env.data.body(mover).xpos, env.data.body(place).xpos
            assert np.linalg.norm(a[:2] - b[:2]) < 0.03 and a[2] > b[2]
    finally:
        env.close()


SHELF_BOOK = (
    "libero_90/STUDY_SCENE4_pick_up_the_book_on_the_right_and_place_it_on_the_cabinet_shelf.bddl"
)


def test_only_a_region_under_its_owners_board_is_a_slot():
    """The two-layer shelf's compartments are covered by its own boards and open at one
    side (world -x in STUDY_SCENE4): slots with the boards' heights; its top is not."""
    env = GoalEnv(LIBERO / SHELF_BOOK, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = GoalExpert(env)
        expert.act(obs)  # plans from the measured state
        shelf = "wooden_two_layer_shelf_1"
        top = expert._slot(_on("yellow_book_1", f"{shelf}_top_region", "In", "site"))
        assert top is not None
        assert (top.floor, top.ceiling) == pytest.approx((0.8595, 0.945), abs=1e-6)
        assert top.inward == pytest.approx([1.0, 0.0], abs=1e-9)
        assert (top.opening, top.back) == pytest.approx((-0.095, 0.083), abs=1e-6)
        bottom = expert._slot(_on("yellow_book_1", f"{shelf}_bottom_region", "In", "site"))
        assert bottom is not None
        assert (bottom.floor, bottom.ceiling) == pytest.approx((0.762, 0.8475), abs=1e-6)
        assert expert._slot(_on("yellow_book_1", f"{shelf}_top_side", "On", "site")) is None
    finally:
        env.close()


def test_a_book_goes_in_level_onto_the_shelf_board():
    """A book too tall for the compartment is turned level (its covers horizontal) and
    pushed in from the open side, the fingers outside, then let go (seed 0)."""
    env, expert, info = _run(LIBERO / SHELF_BOOK, seed=0)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
        book = env.data.body("yellow_book_1")
        assert abs(book.xmat.reshape(3, 3)[2, 1]) > 0.95  # its thickness (local y) upright
        assert book.xpos[2] == pytest.approx(0.8595 + 0.014, abs=0.004)  # on the middle board
    finally:
        env.close()


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
        expert = GoalExpert(env)
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
        expert = GoalExpert(env)
        info, steps = _play(env, expert, obs)
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert expert.side == "left"
        assert not [w for w in expert.warnings if w.startswith("handed over")]
        assert steps == 148
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
    env = GoalEnv(TASKS / "vla_arena" / name, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = GoalExpert(env)
        start = env.data.body("lemon_1").xpos.copy()
        info, steps = _play(env, expert, obs)
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
    env = GoalEnv(TASKS / "vla_arena" / name, cameras=(), max_steps=600)
    try:
        obs, _ = env.reset(seed=0)
        expert = GoalExpert(env)
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
