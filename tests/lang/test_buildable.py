"""Goal tasks read from real LIBERO / VLA-Arena files (tests/data/bddl_suites)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.errors import TaskError
from rsb_mj.lang.buildable import MODELLED_STATES, check_buildable, unbuildable
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
    task = task_of(parse_file(APPLE), expect="goal")
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
        task_of(problem, expect="goal")


def test_every_tier_builds_and_what_cannot_is_named_at_its_position():
    path = LIBERO_GOAL / "turn_on_the_stove.bddl"
    text = path.read_text()
    task = task_of(parse_text(text, str(path)), expect="goal")
    assert task.tier == "B2"
    known = {*task.objects.values()}
    assert unbuildable(task, known) == []  # tier B2 builds (its stove is articulated)
    floor = next((SUITES / "libero/libero_object").glob("*.bddl"))
    c = task_of(parse_file(floor), expect="goal")
    assert (c.tier, unbuildable(c, {*c.objects.values()})) == ("C", [])
    # a goal nothing scores (LIBERO's Up) and a category without a model stay refused
    edited = text.replace("(Turnon flat_stove_1)", "(Up flat_stove_1)")
    assert edited != text
    task = task_of(parse_text(edited, str(path)), expect="goal")
    issues = [i.format(str(path)) for i in unbuildable(task, known - {"cream_cheese"})]
    assert issues == [
        f"{path}:104:20: object 'cream_cheese_1': category 'cream_cheese' has no rsb model",
        f"{path}:124:10: goal predicate 'Up' is not scored by rsb_mj (it scores On, In, Open, "
        "Close, TurnOn, TurnOff)",
    ]
    with pytest.raises(TaskError) as err:
        check_buildable(task, {"plate"})
    assert str(err.value).splitlines()[0] == f"{path}: rsb_mj cannot build this scene (tier A1):"


def test_a_state_on_a_fixture_without_it_is_named_at_its_atom():
    path = LIBERO_GOAL / "turn_on_the_stove.bddl"
    text = path.read_text().replace("(Turnon flat_stove_1)", "(Open flat_stove_1)")
    task = task_of(parse_text(text, str(path)), expect="goal")
    assert task.tier == "B2"
    assert [i.format(str(path)) for i in unbuildable(task, {*task.objects.values()})] == [
        f"{path}:124:10: (Open flat_stove_1): 'flat_stove_1' (flat_stove) has no Open state in "
        "rsb_mj (its states: TurnOff, TurnOn; fixtures with states: wooden_cabinet, "
        "white_cabinet, microwave, flat_stove)"
    ]


def test_the_modelled_states_are_the_articulated_stand_ins():
    from rsb_mj.scene.categories.articulated import ARTICULATED_FIXTURES

    assert {c: set(f.spec.init_ranges) for c, f in ARTICULATED_FIXTURES.items()} == {
        c: set(s) for c, s in MODELLED_STATES.items()
    }


def test_a_goal_task_without_goal_is_refused_with_its_path():
    src = "(define (problem P) (:domain robosuite) (:objects a - apple) (:init))"
    with pytest.raises(TaskError, match="<string>: the task has no :goal"):
        task_of(parse_text(src), expect="goal")


def test_goal_task_is_the_one_task_under_its_former_name():
    # kept for one release (rsb_mj.lang.buildable's docstring): the same type, the same object
    problem = parse_file(APPLE)
    assert Task is Task
    assert task_of(problem, expect="goal") is task_of(problem)


def test_a_goal_task_without_goal_is_still_a_task_but_not_a_goal_tasks_reading():
    src = "(define (problem P) (:domain robosuite) (:objects a - apple) (:init))"
    task = task_of(parse_text(src))
    assert (task.family, task.semantics, task.goal, task.tier) == ("goal", "vla_arena", (), "A0")
    with pytest.raises(TaskError, match=r"^<string>: task has no \(:question \(:source S\)"):
        task.asked()
