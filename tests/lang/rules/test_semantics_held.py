"""RSB440 (:mod:`rsb_mj.lang.rules.semantics_held`): what a gripper holds at reset,
``(Grasped OBJECT GRIPPER)`` in ``:init``; one failing fixture per cause, with the exact
position and message (tests/lang/rule_cases.py), and the atom's place in the other rules."""

import pytest

from rsb_mj.lang import parse_text
from rsb_mj.lang.held import held_at_reset
from rsb_mj.lang.linter import lint_problem

from ..lang_samples import A2A_BASE
from ..rule_cases import FIELDS, expected, first_finding

HELD = "(On cube table_pick_area)\n    (Grasped cube left_gripper)"

CASES = [
    (
        "RSB440",
        A2A_BASE,
        "(On cube table_pick_area)",
        "(On cube table_pick_area)\n    (Grasped cube left_hand)",
        25,
        19,
        "unknown gripper 'left_hand'; valid choices: left_gripper, right_gripper",
    ),
    (
        "RSB440",
        A2A_BASE,
        "(On cube table_pick_area)",
        "(On cube table_pick_area)\n    (Grasped plate_a right_gripper)",
        25,
        14,
        "'plate_a' is a candidate: holding it at reset would be the choice; hold what the "
        "goal moves (e.g. Act2Answer's cube)",
    ),
    (
        "RSB440",
        A2A_BASE,
        "(On cube table_pick_area)",
        "(On cube table_pick_area)\n    (Grasped table left_gripper)",
        25,
        14,
        "'table' is a fixture; a gripper holds an object of :objects",
    ),
    (
        "RSB440",
        A2A_BASE,
        "(On cube table_pick_area)",
        HELD + "\n    (Grasped cube right_gripper)",
        26,
        5,
        "'cube' is already held by left_gripper; one gripper per object",
    ),
    (
        "RSB440",
        A2A_BASE,
        "(On cube table_pick_area)",
        "(Grasped cube left_gripper)",
        24,
        5,
        "(Grasped cube left_gripper) needs (On cube REGION) in :init: the reset picks the "
        "object up from there",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


def _two_cubes(held: str) -> str:
    text = A2A_BASE.replace("cube - pick_cube", "cube cube_b - pick_cube")
    return text.replace("(On cube table_pick_area)", "(On cube table_pick_area) " + held)


def test_one_gripper_holds_one_object():
    text = _two_cubes("(Grasped cube left_gripper) (Grasped cube_b left_gripper)")
    found = [d for d in lint_problem(parse_text(text, "t.bddl")) if d.code == "RSB440"]
    assert [(d.span.line, d.message) for d in found] == [
        (24, "left_gripper already holds 'cube'; one object per gripper")
    ]


def test_a_held_object_lints_clean_and_is_read_as_object_to_arm():
    problem = parse_text(A2A_BASE.replace("(On cube table_pick_area)", HELD), "t.bddl")
    assert lint_problem(problem, target="rsb") == []
    assert held_at_reset(problem) == {"cube": "left"}
    assert held_at_reset(parse_text(A2A_BASE, "t.bddl")) == {}


def test_grasped_keeps_its_one_argument_outside_init():
    text = A2A_BASE.replace("(:grasp (Grasped cube))", "(:grasp (Grasped cube left_gripper))")
    codes = [d.code for d in lint_problem(parse_text(text, "t.bddl"))]
    assert "RSB205" in codes and "RSB440" not in codes
