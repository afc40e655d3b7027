"""The placement rule on hand-written signals (Act2Answer's task: the cube moves, the plates
are the candidates): grasp, the first resting plate decides, finish."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.expr import And, Atom, Name, Variable
from rsb_mj.scoring import EpisodeScorer
from rsb_mj.scoring.outcome import FirstPlacement

S = 25  # substeps per control step
GRASP = Atom("Grasped", (Name("cube"),))
GOAL = And((Atom("On", (Name("cube"), Variable("answer"))), Atom("Released", (Name("cube"),))))


def a2a_scorer(target):
    return EpisodeScorer(GRASP, GOAL, ("plate_a", "plate_b"), target, movers=("cube",))


def signals(*, pinch=False, lifted=False, on_plate=None, touching=None):
    """One control step of the cube's signals (M = 1) over 2 plates."""
    touch = pinch if touching is None else touching
    return {
        "contact": np.full((S, 1, 2), [touch, False]),
        "pinch": np.full((S, 1, 2), [pinch, False]),
        "table_contact": np.full((S, 1), not lifted),
        "gripper_cmd": np.full((S, 2), [0.0 if pinch else 1.0, 1.0]),
        "gripper_open": np.full((S, 2), [0.5, 1.0]),
        "lift": np.full((S, 1), 0.05 if lifted else 0.0),
        "on": np.tile(np.array(on_plate or [False, False]), (S, 1, 1)),
    }


def run(scorer, steps):
    for step in steps:
        out = scorer.update(step)
    return out


def test_a_grasp_naming_the_cube_selects_the_placement_rule():
    scorer = a2a_scorer("plate_b")
    assert isinstance(scorer.rule, FirstPlacement) and scorer.rule.movers == ("cube",)
    assert scorer.plan.objects == ("cube",) and "on" in scorer.plan.names


def test_grasp_then_rest_on_the_correct_plate_succeeds_after_half_a_second():
    scorer = a2a_scorer("plate_b")
    out = run(
        scorer, [signals(pinch=True, lifted=True)] * 3 + [signals(on_plate=[False, True])] * 9
    )
    assert (out.grasped, out.grasp_step, out.decided) == (True, 1, False)
    out = scorer.update(signals(on_plate=[False, True]))
    assert (out.decided, out.choice, out.success, out.success_step) == (True, "plate_b", True, 13)
    assert out.grasped_candidates == ["cube"] and out.in_zone == ["plate_b"] and out.goal_final


def test_the_first_plate_decides_even_if_the_cube_moves_on():
    scorer = a2a_scorer("plate_b")
    out = run(scorer, [signals(pinch=True, lifted=True)] + [signals(on_plate=[True, False])] * 10)
    assert (out.choice, out.correct_choice, out.success) == ("plate_a", False, False)
    out = run(scorer, [signals(on_plate=[False, True])] * 20)
    assert out.choice == "plate_a" and out.decided_step == 11


def test_a_goal_holding_for_two_plates_at_once_places_nothing():
    scorer = a2a_scorer("plate_a")
    out = run(scorer, [signals(pinch=True, lifted=True)] + [signals(on_plate=[True, True])] * 15)
    assert (out.decided, out.choice, out.in_zone) == (False, None, ["plate_a", "plate_b"])
    out = run(scorer, [signals(on_plate=[True, False])] * 10)
    assert (out.decided, out.choice, out.success, out.decided_step) == (True, "plate_a", True, 26)


def test_a_held_cube_over_a_plate_is_not_a_choice():
    scorer = a2a_scorer("plate_a")
    out = run(scorer, [signals(pinch=True, on_plate=[True, False])] * 30)
    assert (out.grasped, out.decided, out.choice, out.in_zone) == (True, False, None, [])


def test_a_pushed_cube_chooses_without_a_grasp_and_fails():
    scorer = a2a_scorer("plate_a")
    out = run(scorer, [signals(on_plate=[True, False])] * 10)
    assert (out.grasped, out.choice, out.correct_choice, out.success, out.goal_final) == (
        False,
        "plate_a",
        True,
        False,
        False,
    )


def test_finish_takes_the_plate_the_released_cube_lies_on():
    scorer = a2a_scorer("plate_a")
    run(scorer, [signals(pinch=True, lifted=True)] * 2 + [signals(on_plate=[True, False])] * 3)
    assert scorer.success_now() and not scorer.outcome.decided  # info["is_success"] agrees
    out = scorer.finish()
    assert (out.decided, out.choice, out.success, out.success_step) == (True, "plate_a", True, 5)
    nothing = a2a_scorer("plate_a")
    nothing.update(signals())
    assert (nothing.finish().choice, nothing.outcome.success) == (None, False)


def test_bad_inputs_are_named():
    with pytest.raises(
        EvalError, match=r"answer 'plate_c' is not a candidate; valid: plate_a, plate_b"
    ):
        a2a_scorer("plate_c")
    scorer = a2a_scorer("plate_a")
    bad = signals()
    del bad["on"]
    with pytest.raises(EvalError, match=r"info\['signals'\] lacks \['on'\]; expected keys: "):
        scorer.update(bad)
    bad = signals()
    bad["on"] = np.zeros((S, 1, 3), bool)
    with pytest.raises(EvalError, match=r"\['on'\] has shape \(25, 1, 3\); expected \(S, 1, 2\)"):
        scorer.update(bad)
