# ruff: noqa: E501
"""RSB414-415, RSB421-422 (:mod:`rsb_mj.lang.rules.semantics_connectives`): one failing fixture
per rule, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE, LIBERO
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
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
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
