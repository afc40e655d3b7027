"""Grasped: the RSB Appendix C criterion on hand-written substep signals."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates import Grasped, get_predicate
from rsb_mj.scoring.predicates.grasped import CLOSED_BELOW, LIFT_ABOVE_M, STABLE_SUBSTEPS


def test_thresholds_are_the_documented_ones():
    assert (CLOSED_BELOW, LIFT_ABOVE_M, STABLE_SUBSTEPS) == (0.5, 0.01, 8)


def test_stable_contact_counts_from_the_eighth_consecutive_substep(make_signals, wrap):
    d = make_signals(25, 4, cmd=0.0)
    d["contact"][:, 2, 0] = True  # left fingers on candidate 2, gripper closed, not lifted
    out = Grasped().evaluate(wrap(d))
    assert np.flatnonzero(out[:, 2])[0] == 7
    assert not out[:7].any() and out[7:, 2].all() and not out[:, [0, 1, 3]].any()


def test_lifted_counts_at_once_but_only_strictly_above_one_centimetre(make_signals, wrap):
    d = make_signals(3, 4, cmd=0.2)
    d["contact"][:, 1, 1] = True
    d["lift"][0, 1] = 0.01
    d["lift"][1, 1] = 0.0101
    out = Grasped().evaluate(wrap(d))
    assert out[:, 1].tolist() == [False, True, False]


def test_closing_on_nothing_or_touching_with_open_grippers_is_no_grasp(make_signals, wrap):
    empty = make_signals(25, 4, cmd=0.0)
    assert not Grasped().evaluate(wrap(empty)).any()
    pushing = make_signals(25, 4, cmd=CLOSED_BELOW)  # 0.5 is not closed
    pushing["contact"][:, 0, 1] = True
    pushing["lift"][:, 0] = 0.05
    assert not Grasped().evaluate(wrap(pushing)).any()


def test_any_closed_gripper_counts_as_in_the_paper(make_signals, wrap):
    d = make_signals(8, 4)
    d["gripper_cmd"][:, 0] = 0.0  # left closed (on nothing)
    d["contact"][:, 3, 1] = True  # right (open) touches candidate 3
    assert Grasped().evaluate(wrap(d))[7, 3]


def test_the_count_carries_across_control_steps_and_breaks_on_a_gap(make_signals, wrap):
    pred = Grasped()
    first = make_signals(25, 4, cmd=0.0)
    first["contact"][20:, 0, 0] = True  # 5 substeps at the end of step 1
    assert not pred.evaluate(wrap(first)).any()
    second = make_signals(25, 4, cmd=0.0)
    second["contact"][:, 0, 0] = True
    assert np.flatnonzero(pred.evaluate(wrap(second))[:, 0])[0] == 2  # 5 + 3 = 8
    pred.reset()
    gap = make_signals(25, 4, cmd=0.0)
    gap["contact"][:, 0, 0] = True
    gap["contact"][5, 0, 0] = False
    assert np.flatnonzero(pred.evaluate(wrap(gap))[:, 0])[0] == 13


def test_lookup_is_case_insensitive_and_unknown_names_list_the_valid_ones():
    assert get_predicate("grasped") is Grasped
    with pytest.raises(
        EvalError,
        match=r"t.bddl:3:5: predicate 'Touching' cannot be scored; valid choices: "
        r"Grasped, In, Released",
    ):
        get_predicate("Touching", where="t.bddl:3:5")


def test_grasped_takes_only_the_candidate():
    with pytest.raises(
        EvalError, match=r"\(Grasped \.\.\.\) takes 1 argument\(s\) \(candidate\), got 2"
    ):
        Grasped(("table",))
