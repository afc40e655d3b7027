# ruff: noqa: E501
"""RSB201-202 and RSB211 (:mod:`rsb_mj.lang.rules.names`): one failing fixture per rule, with the
exact position and message (tests/lang/rule_cases.py) and the fix RSB201 suggests."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding, lint_edit

CASES = [
    (
        "RSB201",
        BASE,
        "(:goal (And",
        "(:goall (And",
        26,
        3,
        "unknown block ':goall'; did you mean ':goal'? valid blocks: :camera, :candidates, :cost, :domain, :fixtures, :goal, :grasp, :image_settings, :init, :instruction, :language, :layout, :moving_objects, :noise, :obj_of_interest, :objects, :options, :question, :random_color, :regions, :requirements, :scene_properties",
    ),
    (
        "RSB202",
        BASE,
        "  (:candidates",
        "  (:objects block_e - letter_block)\n  (:candidates",
        18,
        3,
        "block ':objects' appears again (first at line 16); write it once",
    ),
    (
        "RSB211",
        BASE,
        "(:domain rsb)",
        "(:domain rbs)",
        3,
        3,
        "unknown domain 'rbs'; valid choices: robosuite, rsb",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


def test_unknown_block_suggests_the_close_keyword_as_its_fix():
    diagnostics = lint_edit(BASE, "(:goal (And", "(:goall (And")
    assert [d.fix for d in diagnostics if d.code == "RSB201"] == [":goal"]
