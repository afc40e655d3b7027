# ruff: noqa: E501
"""RSB407-409, RSB419 (:mod:`rsb_mj.lang.rules.semantics_candidates`): one failing fixture per
rule, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from rsb_mj.lang import RSB_CATEGORIES

from ..lang_samples import BASE, BASE_10
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
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
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
