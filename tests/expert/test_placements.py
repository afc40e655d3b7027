"""What a task and its episode ask the arms to do (rsb_mj.expert.placements), and the one
entry point that carries it out (rsb_mj.expert.entry), on shipped task files."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.env import RsbEnv
from rsb_mj.errors import ExpertError
from rsb_mj.expert.entry import expert_for
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.expert.placements import (
    Zone,
    answer_zone,
    choices,
    placement_order,
    placements,
    riders,
)
from rsb_mj.lang import load_task
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import Relation, task_of
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.tables.episode_source import load_episode, task_path

TASKS = tasks_dir()
MUG = (
    TASKS / "vla_arena" / "safety_object_state_preservation" / "level_1"
    / "pick_up_the_green_mug_on_the_table_and_place_it_on_the_wooden_cabinet.bddl"
)  # fmt: skip
TWO_MUGS = (
    TASKS / "libero" / "libero_10" / "LIVING_ROOM_SCENE5_put_the_white_mug_on_the_left_plate_"
    "and_put_the_yellow_and_white_mug_on_the_right_plate.bddl"
)
STACK = (
    TASKS / "libero" / "libero_90"
    / "LIVING_ROOM_SCENE4_stack_the_left_bowl_on_the_right_bowl_and_place_them_in_the_tray.bddl"
)  # fmt: skip


def test_a_question_task_asks_its_candidate_into_the_answer_zone():
    problem = load_task(TASKS / "rsb_math_4.bddl")
    episode = load_episode("RSB-Math-4", "eval", 0)
    (asked,) = placements(problem, episode)
    assert asked.relation.text == f"In {episode.target} table_answer_zone"
    assert (asked.mover, asked.choice, asked.riders) == (episode.target, episode.target, set())
    assert placements(problem, episode.target) == (asked,)  # a baseline's own choice
    assert placements(task_of(problem), episode) == (asked,)  # the one Task, as its problem
    # the zone is where the compiled scene draws it, in the world frame
    scene = compile_scene(problem)
    assert asked.zone == answer_zone(problem)
    np.testing.assert_array_equal(asked.zone.center, scene.zone_center)
    np.testing.assert_array_equal(asked.zone.half, scene.zone_half_size[:2])
    assert (
        choices(problem)
        == choices(task_of(problem))
        == ("block_a", "block_b", "block_c", "block_d")
    )


def test_act2answer_asks_the_cube_onto_the_chosen_plate():
    problem = load_task(TASKS / "a2a_color.bddl")
    (asked,) = placements(problem, "plate_b")
    assert asked.relation.text == "On cube plate_b"
    assert (asked.relation.kind, asked.zone, asked.choice) == ("object", None, "plate_b")


def test_a_binding_must_name_a_candidate():
    problem = load_task(TASKS / "rsb_math_4.bddl")
    with pytest.raises(
        ExpertError,
        match=r"^target 'block_z' is not a candidate; valid choices: "
        r"block_a, block_b, block_c, block_d$",
    ):
        placements(problem, "block_z")
    with pytest.raises(
        ExpertError,
        match=r"rsb_math_4.bddl: the task's candidates ask one placement per episode: bind "
        r"\?answer to one of them; valid choices: block_a, block_b, block_c, block_d$",
    ):
        placements(problem)


def test_a_goal_task_asks_each_mover_onto_its_place_with_what_rides_on_it():
    problem = load_task(TWO_MUGS)
    asked = placements(problem)
    assert [p.relation.text for p in asked] == [
        "On porcelain_mug_1 plate_1",
        "On white_yellow_mug_1 plate_2",
    ]
    assert all(p.zone is None and p.choice is None and not p.riders for p in asked)
    assert placements(task_of(problem)) == asked  # the one Task, as the goal env reads it
    assert choices(problem) == () and choices(task_of(problem)) == ()
    with pytest.raises(
        ExpertError,
        match=r"LIVING_ROOM_SCENE5_.*\.bddl: no candidate to bind \?answer to \('plate_1'\): "
        r"the task has no \(:candidates \.\.\.\); its goal's placements need no binding$",
    ):
        placements(problem, "plate_1")
    # the right bowl goes into the tray before the left one is stacked on it
    assert [p.relation.text for p in placements(load_task(STACK))] == [
        "In akita_black_bowl_2 wooden_tray_1_contain_region",
        "On akita_black_bowl_1 akita_black_bowl_2",
    ]
    (mug,) = placements(load_task(MUG))
    assert mug.relation.text == "On green_mug_1 short_cabinet_1_top_side"
    assert mug.riders == {f"water_ball_{i}" for i in range(1, 6)}  # the five in the mug


def test_the_entry_point_gives_one_expert_for_every_placement():
    """One class carries out a bound placement (the answer) and a goal's placements."""
    bound = placements(load_task(TASKS / "rsb_math_4.bddl"), "block_a")
    unbound = placements(load_task(TWO_MUGS))
    answer = expert_for(None, bound)
    assert type(answer) is PickPlaceExpert and answer.placements == bound
    assert answer._answer and answer.target == "block_a" and answer.top_down_overlap == 0.0
    goal = expert_for(None, unbound, safe=False)
    assert type(goal) is PickPlaceExpert and goal.placements == unbound and not goal.safe
    assert not goal._answer and goal.top_down_overlap == 0.004
    assert Zone((0.0, 0.1, 0.8), (0.1, 0.05)) == Zone((0.0, 0.1, 0.8), (0.1, 0.05))


def test_a_placement_and_its_candidate_give_the_same_actions():
    """PickPlaceExpert(env, candidate) binds the candidate through the task's goal: the
    same motions as the placement handed to the entry point."""
    env = RsbEnv(task_path("RSB-Math-4"), suite="RSB-Math-4", cameras=())
    try:
        episode = load_episode("RSB-Math-4", "eval", 3)
        runs = []
        for make in (
            lambda: PickPlaceExpert(env, episode.target),
            lambda: expert_for(env, placements(env.scene.problem, episode)),
        ):
            obs, _ = env.reset(options={"episode": episode})
            expert = make()
            actions = []
            for _ in range(40):
                actions.append(expert.act(obs))
                obs, *_ = env.step(actions[-1])
            runs.append(np.stack(actions))
            assert expert.place_center.tolist() == list(answer_zone(env.scene.problem).center)
        np.testing.assert_array_equal(runs[0], runs[1])
        assert np.ptp(runs[0], axis=0).max() > 0.01  # the arm moved
    finally:
        env.close()


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
