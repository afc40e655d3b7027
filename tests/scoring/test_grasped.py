"""Grasped: the RSB Appendix C criterion, read strictly, on hand-written substep signals."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates import Grasped, get_predicate
from rsb_mj.scoring.predicates.grasped import (
    CLOSED_BELOW,
    HELD_OPEN_ABOVE,
    LIFT_ABOVE_M,
    STABLE_CONTROL_STEPS,
)


def _pinched(make_signals, n=2, side=0, *, s=25, cmd=0.0, opening=0.5):
    """Candidate n between both fingers of ``side``, that gripper commanded ``cmd`` and
    measured ``opening``; the other gripper open."""
    d = make_signals(s, 4, cmd=1.0)
    d["contact"][:, n, side] = True
    d["pinch"][:, n, side] = True
    d["gripper_cmd"][:, side] = cmd
    d["gripper_open"][:, side] = opening
    return d


def test_thresholds_are_the_documented_ones():
    assert (CLOSED_BELOW, HELD_OPEN_ABOVE, LIFT_ABOVE_M, STABLE_CONTROL_STEPS) == (
        0.5,
        0.05,
        0.01,
        8,
    )


def test_a_pinch_counts_after_eight_consecutive_control_steps(make_signals, wrap):
    pred = Grasped()
    for _ in range(7):  # 7 control steps = 175 substeps: not yet
        assert not pred.evaluate(wrap(_pinched(make_signals))).any()
    out = pred.evaluate(wrap(_pinched(make_signals)))
    assert np.flatnonzero(out[:, 2]).tolist() == list(range(24, 25))
    assert not out[:, [0, 1, 3]].any()


def test_lifted_off_the_table_counts_at_once_but_only_strictly_above_one_centimetre(
    make_signals, wrap
):
    d = _pinched(make_signals, 1, 1, s=4, cmd=0.2)
    d["lift"][:, 1] = [0.01, 0.0101, 0.05, 0.05]
    d["table_contact"][:, 1] = [False, False, False, True]  # last: still touching the table
    assert Grasped().evaluate(wrap(d))[:, 1].tolist() == [False, True, True, False]


def test_one_finger_touching_a_lifted_block_is_a_brush_not_a_grasp(make_signals, wrap):
    d = _pinched(make_signals, 0, 0)
    d["pinch"][:] = False  # contact with one finger only
    d["lift"][:, 0] = 0.05
    d["table_contact"][:, 0] = False
    assert not Grasped().evaluate(wrap(d)).any()


def test_a_closed_gripper_on_the_other_arm_never_counts(make_signals, wrap):
    d = _pinched(make_signals, 3, 1, cmd=1.0)  # right gripper open, pinching candidate 3
    d["gripper_cmd"][:, 0] = 0.0  # left gripper closed on nothing
    d["lift"][:, 3] = 0.05
    d["table_contact"][:, 3] = False
    pred = Grasped()
    for _ in range(10):
        assert not pred.evaluate(wrap(d)).any()


def test_closed_fingertips_pushing_a_block_hold_nothing(make_signals, wrap):
    # Both fingertips of the closed gripper touch the block, but the fingers are shut.
    d = _pinched(make_signals, 2, 0, cmd=0.0, opening=HELD_OPEN_ABOVE)
    d["lift"][:, 2] = 0.05
    d["table_contact"][:, 2] = False
    pred = Grasped()
    for _ in range(10):
        assert not pred.evaluate(wrap(d)).any()


def test_an_open_command_is_no_grasp(make_signals, wrap):
    d = _pinched(make_signals, 0, 0, cmd=CLOSED_BELOW)  # 0.5 is not closed
    d["lift"][:, 0] = 0.05
    d["table_contact"][:, 0] = False
    assert not Grasped().evaluate(wrap(d)).any()


def test_the_count_carries_across_control_steps_and_breaks_on_a_gap(make_signals, wrap):
    pred = Grasped()
    first = _pinched(make_signals)
    first["pinch"][:20] = False  # 5 substeps of pinch at the end of step 1
    assert not pred.evaluate(wrap(first)).any()
    for _ in range(7):  # 5 + 175 = 180 substeps
        assert not pred.evaluate(wrap(_pinched(make_signals))).any()
    out = pred.evaluate(wrap(_pinched(make_signals)))
    assert np.flatnonzero(out[:, 2])[0] == 19  # 5 + 175 + 20 = 200
    pred.reset()
    for _ in range(7):
        pred.evaluate(wrap(_pinched(make_signals)))
    gap = _pinched(make_signals)
    gap["pinch"][5, 2, 0] = False
    assert not pred.evaluate(wrap(gap)).any()


def test_lookup_is_case_insensitive_and_unknown_names_list_the_valid_ones():
    assert get_predicate("grasped") is Grasped
    with pytest.raises(
        EvalError,
        match=r"t.bddl:3:5: predicate 'Touching' cannot be scored; valid choices: "
        r"Grasped, In, On, Released",
    ):
        get_predicate("Touching", where="t.bddl:3:5")


def test_grasped_takes_only_the_object():
    with pytest.raises(
        EvalError, match=r"\(Grasped \.\.\.\) takes 1 argument\(s\) \(object\), got 2"
    ):
        Grasped(("table",))
