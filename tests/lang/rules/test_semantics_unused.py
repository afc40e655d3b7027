# ruff: noqa: E501
"""RSB416-417 (:mod:`rsb_mj.lang.rules.semantics_unused`): one failing fixture per rule, with
the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
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
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
