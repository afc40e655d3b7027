"""A2A scoring on hand-written signals: grasp, first resting plate decides, finish."""

import numpy as np
import pytest

from rsb_mj.a2a.scoring import A2AScorer
from rsb_mj.errors import EvalError

S = 25  # substeps per control step


def signals(*, pinch=False, lifted=False, on_plate=None, touching=None):
    """One control step of the cube's signals (N = 1) and on_plate over 2 plates."""
    touch = pinch if touching is None else touching
    return {
        "contact": np.full((S, 1, 2), [touch, False]),
        "pinch": np.full((S, 1, 2), [pinch, False]),
        "table_contact": np.full((S, 1), not lifted),
        "gripper_cmd": np.full((S, 2), [0.0 if pinch else 1.0, 1.0]),
        "gripper_open": np.full((S, 2), [0.5, 1.0]),
        "lift": np.full((S, 1), 0.05 if lifted else 0.0),
        "in_zone": np.zeros((S, 1), bool),
        "on_plate": np.tile(np.array(on_plate or [False, False]), (S, 1)),
    }


def run(scorer, steps):
    for step in steps:
        out = scorer.update(step)
    return out


def test_grasp_then_rest_on_the_correct_plate_succeeds_after_half_a_second():
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_b", "cube")
    out = run(
        scorer, [signals(pinch=True, lifted=True)] * 3 + [signals(on_plate=[False, True])] * 9
    )
    assert (out.grasped, out.grasp_step, out.decided) == (True, 1, False)
    out = scorer.update(signals(on_plate=[False, True]))
    assert (out.decided, out.choice, out.success, out.success_step) == (True, "plate_b", True, 13)
    assert out.grasped_candidates == ["cube"]


def test_the_first_plate_decides_even_if_the_cube_moves_on():
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_b", "cube")
    out = run(scorer, [signals(pinch=True, lifted=True)] + [signals(on_plate=[True, False])] * 10)
    assert (out.choice, out.correct_choice, out.success) == ("plate_a", False, False)
    out = run(scorer, [signals(on_plate=[False, True])] * 20)
    assert out.choice == "plate_a" and out.decided_step == 11


def test_a_held_cube_over_a_plate_is_not_a_choice():
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_a", "cube")
    out = run(scorer, [signals(pinch=True, on_plate=[True, False])] * 30)
    assert (out.grasped, out.decided, out.choice) == (True, False, None)


def test_a_pushed_cube_chooses_without_a_grasp_and_fails():
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_a", "cube")
    out = run(scorer, [signals(on_plate=[True, False])] * 10)
    assert (out.grasped, out.choice, out.correct_choice, out.success) == (
        False,
        "plate_a",
        True,
        False,
    )


def test_finish_takes_the_plate_the_released_cube_lies_on():
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_a", "cube")
    run(scorer, [signals(pinch=True, lifted=True)] * 2 + [signals(on_plate=[True, False])] * 3)
    out = scorer.finish()
    assert (out.decided, out.choice, out.success) == (True, "plate_a", True)
    nothing = A2AScorer(("plate_a", "plate_b"), "plate_a", "cube")
    nothing.update(signals())
    assert (nothing.finish().choice, nothing.outcome.success) == (None, False)


def test_bad_inputs_are_named():
    with pytest.raises(
        EvalError, match=r"target 'plate_c' is not a plate; valid choices: plate_a, plate_b"
    ):
        A2AScorer(("plate_a", "plate_b"), "plate_c", "cube")
    scorer = A2AScorer(("plate_a", "plate_b"), "plate_a", "cube")
    bad = signals()
    del bad["on_plate"]
    with pytest.raises(EvalError, match=r"needs info\['signals'\]\['on_plate'\]"):
        scorer.update(bad)
    bad = signals()
    bad["on_plate"] = np.zeros((S, 3), bool)
    with pytest.raises(EvalError, match=r"has shape \(25, 3\); expected \(25, 2\)"):
        scorer.update(bad)
