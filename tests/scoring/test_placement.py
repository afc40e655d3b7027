"""goal_placement: what a goal moves and where, once ?answer is bound (the expert's reading)."""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import And, Atom, Name, Variable
from rsb_mj.scoring.placement import Placement, goal_placement

RSB_GOAL = And(
    (
        Atom("In", (Variable("answer"), Name("table_answer_zone"))),
        Atom("Released", (Variable("answer"),)),
    )
)
A2A_GOAL = And((Atom("On", (Name("cube"), Variable("answer"))), Atom("Released", (Name("cube"),))))


def test_in_moves_the_candidate_into_the_zone():
    assert goal_placement(RSB_GOAL, "block_c") == Placement("block_c", None)


def test_on_moves_the_named_object_onto_the_candidate():
    assert goal_placement(A2A_GOAL, "plate_b") == Placement("cube", "plate_b")


def test_a_goal_without_a_place_names_the_valid_forms():
    with pytest.raises(
        EvalError,
        match=r"t.bddl: the :goal has no place atom to move anything to; valid choices: "
        r"\(In \?answer REGION\), \(On OBJECT \?answer\)",
    ):
        goal_placement(Atom("Released", (Variable("answer"),)), "block_a", path="t.bddl")
