"""Goal tasks read from real LIBERO / VLA-Arena files (tests/data/bddl_suites)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.errors import TaskError
from rsb_mj.lang.goal_task import GoalTask, check_buildable, goal_task_of, unbuildable
from rsb_mj.lang.parser import parse_file, parse_text
from rsb_mj.lang.task import Task, task_family, task_of, task_semantics, tier_of

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    SUITES
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
LIBERO_GOAL = SUITES / "libero/libero_goal"
TASKS = Path(__file__).resolve().parents[2] / "tasks"


def test_a_vla_arena_file_is_an_a0_goal_task_with_vla_arena_semantics():
    task = goal_task_of(parse_file(APPLE))
    assert task.semantics == "vla_arena" and task.on_xy == 0.07
    assert task.family == "goal" and task.question is None and task.candidates == ()
    assert task.tier == "A0"
    assert task.instruction == "Pick the apple on the table and place it on the plate"
    assert [(r.predicate, r.mover, r.place, r.kind) for r in task.goal] == [
        ("On", "apple_1", "plate_1", "object")
    ]
    assert ("On", "apple_1", "main_table_target_object_region", "region") in [
        (r.predicate, r.mover, r.place, r.kind) for r in task.init
    ]
    assert task.table == "main_table" and task.movers == ("apple_1",)


@pytest.mark.parametrize(
    ("name", "tier"),
    [
        ("put_the_bowl_on_the_plate.bddl", "A1"),  # cabinet and stove stand as props
        ("put_the_bowl_on_top_of_the_cabinet.bddl", "A1"),  # top_side is on the prop
        ("open_the_top_drawer_and_put_the_bowl_inside.bddl", "B1"),  # a drawer as container
        ("turn_on_the_stove.bddl", "B2"),  # operates a fixture
    ],
)
def test_libero_tiers(name, tier):
    problem = parse_file(LIBERO_GOAL / name)
    assert task_semantics(problem) == "libero"
    assert tier_of(problem) == tier


def test_a_floor_workspace_is_tier_c():
    floor = next((SUITES / "libero/libero_object").glob("*.bddl"))
    assert tier_of(parse_file(floor)) == "C"


def test_a_question_task_is_not_a_goal_task():
    problem = parse_file(TASKS / "rsb_math_4.bddl")
    assert task_family(problem) == "question"
    with pytest.raises(TaskError, match="a question task is not read as a goal task"):
        goal_task_of(problem)


def test_an_unbuildable_file_gets_every_part_with_positions_and_its_tier():
    path = LIBERO_GOAL / "turn_on_the_stove.bddl"
    task = goal_task_of(parse_file(path))
    issues = unbuildable(task, {"plate", "akita_black_bowl"})
    text = [i.format(str(path)) for i in issues]
    assert text[0] == f"{path}:124:5: tier B2 (a goal that operates a fixture " \
        "(Open/Close/TurnOn/TurnOff)); rsb_mj builds tiers A0 and A1"  # fmt: skip
    assert any("category 'cream_cheese' has no rsb model" in t for t in text)
    with pytest.raises(TaskError) as err:
        check_buildable(task, {"plate"})
    assert str(err.value).splitlines()[0] == (f"{path}: rsb_mj cannot build this scene (tier B2):")


def test_a_goal_task_without_goal_is_refused_with_its_path():
    src = "(define (problem P) (:domain robosuite) (:objects a - apple) (:init))"
    with pytest.raises(TaskError, match="<string>: the task has no :goal"):
        goal_task_of(parse_text(src))


def test_goal_task_is_the_one_task_under_its_former_name():
    # kept for one release (rsb_mj.lang.goal_task's docstring): the same type, the same object
    problem = parse_file(APPLE)
    assert GoalTask is Task
    assert goal_task_of(problem) is task_of(problem)


def test_a_goal_task_without_goal_is_still_a_task_but_not_a_goal_tasks_reading():
    src = "(define (problem P) (:domain robosuite) (:objects a - apple) (:init))"
    task = task_of(parse_text(src))
    assert (task.family, task.semantics, task.goal, task.tier) == ("goal", "vla_arena", (), "A0")
    with pytest.raises(TaskError, match=r"^<string>: task has no \(:question \(:source S\)"):
        task.asked()
