"""goal_placement: what a goal moves and where, once ?answer is bound (the expert's reading)."""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang import load_task, parse_text
from rsb_mj.resources import tasks_dir
from rsb_mj.scoring.placement import Placement, goal_placement


def test_in_moves_the_candidate_into_the_zone():
    problem = load_task(tasks_dir() / "rsb_math_4.bddl")
    assert goal_placement(problem, "block_c") == Placement("block_c", None)


def test_on_moves_the_named_object_onto_the_candidate():
    problem = load_task(tasks_dir() / "a2a_color.bddl")
    assert goal_placement(problem, "plate_b") == Placement("cube", "plate_b")


def test_a_goal_without_a_place_names_the_valid_forms():
    text = (tasks_dir() / "rsb_math_4.bddl").read_text()
    text = text.replace(
        "(And (In ?answer table_answer_zone) (Released ?answer))", "(Released ?answer)"
    )
    with pytest.raises(
        EvalError,
        match=r"t.bddl: the :goal has no place atom to move anything to; valid choices: "
        r"\(In \?answer REGION\), \(On OBJECT \?answer\)",
    ):
        goal_placement(parse_text(text, "t.bddl"), "block_a")
