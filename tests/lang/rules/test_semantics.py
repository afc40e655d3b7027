# ruff: noqa: E501
"""RSB401-406 (:mod:`rsb_mj.lang.rules.semantics`): one failing fixture per rule, with the
exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

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
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
