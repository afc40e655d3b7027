# ruff: noqa: E501
"""RSB401-423 and RSB440 (:mod:`rsb_mj.lang.rules.semantics`): one failing fixture per rule (and
per cause of RSB440), with the exact position and message (tests/lang/rule_cases.py), and a
held atom's place in the other rules."""

import pytest

from rsb_mj.lang import RSB_CATEGORIES, parse_text
from rsb_mj.lang.held import held_at_reset
from rsb_mj.lang.linter import lint_problem, lint_text

from ..lang_samples import A2A_BASE, BASE, BASE_10, LIBERO
from ..rule_cases import FIELDS, expected, first_finding

HELD = "(On cube table_pick_area)\n    (Grasped cube left_gripper)"

CASES = [
    (
        "RSB401",
        BASE,
        "  (:grasp (Grasped ?c - candidate))\n",
        "",
        2,
        1,
        "missing block ':grasp' for an rsb task",
    ),
    (
        "RSB402",
        BASE,
        "(:question (:source arithmetic) (:choices 4))",
        "(:question (:source arithmetic))",
        4,
        3,
        ":question lacks (:choices N)",
    ),
    (
        "RSB403",
        BASE,
        "(:source arithmetic)",
        "(:source gsm8)",
        4,
        3,
        ":source 'gsm8' is unknown; did you mean 'gsm8k'? valid choices: arithmetic, gsm8k, mmlu_pro, mmlu, a2a_color, a2a_shape, a2a_counting, a2a_size, a2a_spatial, a2a_time, a2a_physical, a2a_biological, a2a_quantitative, a2a_social, a2a_normative, a2a_cultural",
    ),
    (
        "RSB404",
        BASE,
        "(:choices 4)",
        "(:choices 11)",
        4,
        3,
        ":choices 11 is not supported; valid choices: 2..10",
    ),
    (
        "RSB405",
        BASE,
        "(:templates seen)",
        "(:templates held_out)",
        5,
        29,
        ":templates 'held_out' is unknown; valid choices: seen, unseen",
    ),
    (
        "RSB406",
        BASE,
        "(:map shuffle)",
        "(:map random)",
        19,
        13,
        ":map 'random' is unknown; valid choices: shuffle",
    ),
    (
        "RSB407",
        BASE,
        "(:choices 4)",
        "(:choices 10)",
        18,
        3,
        "(:choices 10) needs 10 candidates (options A B C D E F G H I K), got 4",
    ),
    (
        "RSB408",
        BASE,
        "(:candidates block_a",
        "(:candidates table",
        18,
        3,
        "candidate 'table' is a fixture; candidates must be movable :objects",
    ),
    (
        "RSB409",
        BASE,
        "(:candidates block_a block_b",
        "(:candidates block_a block_a",
        18,
        3,
        "candidate 'block_a' is listed twice",
    ),
    (
        "RSB419",
        BASE_10,
        " - letter_block",
        " - can",
        17,
        5,
        "candidate 'block_a' (can) cannot show an option letter, which a 10-choice task needs (more than 8 choices share one color); categories with letters: "
        + ", ".join(sorted(c for c, i in RSB_CATEGORIES.items() if i.letters)),
    ),
    (
        "RSB423",
        BASE,
        "(:map shuffle)",
        "(:map shuffle) (:map (A block_a) (B block_b) (C block_c) (D block_d))",
        19,
        28,
        "a second (:map ...) in :options; give one mapping rule",
    ),
    (
        "RSB410",
        BASE,
        "(:map shuffle)",
        "(:map (A block_a) (B block_b) (C block_c))",
        19,
        13,
        "candidate 'block_d' has no option letter in :map",
    ),
    (
        "RSB411",
        BASE,
        "(:map shuffle)",
        "(:map (A block_a) (B block_b) (C block_c) (D table))",
        19,
        13,
        "option D maps to 'table', which is not a candidate",
    ),
    (
        "RSB412",
        BASE_10,
        "(:map shuffle)",
        "(:map (A block_a) (B block_b) (C block_c) (D block_d) (E block_e) (F block_f) (G block_g) (H block_h) (I block_i) (J block_k))",
        19,
        13,
        "option letter 'J' is not an option (J is skipped: it is easily confused with I); valid choices: A B C D E F G H I K",
    ),
    (
        "RSB413",
        BASE,
        "(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
        "(:goal (And (In block_a table_answer_zone)))",
        26,
        3,
        ":goal never mentions ?answer, so success does not depend on the question",
    ),
    (
        "RSB420",
        BASE,
        "(Grasped ?c - candidate)",
        "(Grasped block_a)",
        25,
        3,
        ":grasp must range over the candidates, e.g. (Grasped ?c - candidate)",
    ),
    (
        "RSB420",
        A2A_BASE,
        "(:grasp (Grasped cube))",
        "(:grasp (Grasped ?c - candidate))",
        27,
        3,
        ":grasp must grasp what the goal moves, e.g. (Grasped cube)",
    ),
    (
        "RSB413",
        A2A_BASE,
        "(On cube ?answer)",
        "(On cube plate_a)",
        28,
        3,
        ":goal never mentions ?answer, so success does not depend on the question",
    ),
    (
        "RSB414",
        BASE,
        "(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
        "(:goal (In ?answer table_answer_zone) (Released ?answer))",
        26,
        3,
        ":goal has 2 terms and no And; VLA-Arena keeps only the first, so 1 would be lost",
    ),
    (
        "RSB415",
        BASE,
        "(Released ?answer)))",
        "(Released ?answer) (Released ?answer)))",
        26,
        65,
        "term repeated in :goal: (Released ?answer)",
    ),
    (
        "RSB421",
        BASE,
        "(Released ?answer)))",
        "(Released ?answer) (Or)))",
        26,
        65,
        "empty (Or) in :goal is never true",
    ),
    (
        "RSB422",
        BASE,
        "(Released ?answer)))",
        "(Not (In ?answer table_answer_zone))))",
        26,
        46,
        "(And ...) in :goal holds (In ?answer table_answer_zone) and its negation; it can never be true",
    ),
    (
        "RSB414",
        LIBERO,
        "(:cost (And (Fall plate_1) (CheckGripperContact plate_1)))",
        "(:cost (Fall plate_1) (CheckGripperContact plate_1))",
        22,
        3,
        ":cost has 2 terms and no And; VLA-Arena keeps only the first, so 1 would be lost",
    ),
    (
        "RSB416",
        BASE,
        "block_d - letter_block)",
        "block_d - letter_block\n    spare - letter_block)",
        18,
        5,
        "'spare' is declared but never used",
    ),
    (
        "RSB417",
        BASE,
        "    (answer_zone\n",
        "    (spare\n      (:target table)\n      (:ranges ((0.3 0.0 0.4 0.1))))\n    (answer_zone\n",
        10,
        5,
        "region 'table_spare' is defined but never used",
    ),
    (
        "RSB418",
        LIBERO,
        "(:language Put the bowl on the plate)",
        "(:language Put the bowl on the stove)",
        3,
        3,
        ":language 'Put the bowl on the stove' disagrees with the file name 'put_the_bowl_on_the_plate.bddl' ('put the bowl on the plate'); LIBERO prompts come from the file name",
    ),
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


def test_a_user_file_named_apart_from_its_language_is_not_a_mismatch():
    """RSB418 holds for LIBERO's and VLA-Arena's benchmark files, whose harness makes the
    prompt from the name; a user's own file (rsb_mj prompts with :language) may be named
    anything."""
    text = LIBERO.replace("(:language Put the bowl on the plate)", "(:language Put the bowl away)")
    assert [d.code for d in lint_text(text, "my_tasks/bowl_task.bddl")[1]] == []
    found = lint_text(text, "libero/libero_goal/put_the_bowl_on_the_plate.bddl")[1]
    assert [d.code for d in found] == ["RSB418"]
