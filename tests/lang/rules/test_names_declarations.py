# ruff: noqa: E501
"""RSB203 and RSB208-210 (:mod:`rsb_mj.lang.rules.names_declarations`): one failing fixture per
rule, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB203",
        BASE,
        "- letter_block",
        "- leter_block",
        17,
        5,
        "object 'block_a' has unknown category 'leter_block'; did you mean 'letter_block'? valid "
        "choices: answer_plate, apple, banana, bottle, bowl, bread, can, cereal, hammer, lemon, "
        "letter_block, milk, ... (24 in all)",
    ),
    (
        "RSB208",
        BASE,
        "block_a block_b block_c block_d - letter_block",
        "block_a block_b block_c block_d block_a - letter_block",
        17,
        37,
        "'block_a' is declared again (first at line 17)",
    ),
    (
        "RSB209",
        BASE,
        "(:target table)\n      (:ranges ((-0.25",
        "(:target tabel)\n      (:ranges ((-0.25",
        7,
        5,
        "region 'candidates' targets 'tabel', which is not declared; did you mean 'table'? valid targets: block_a, block_b, block_c, block_d, table",
    ),
    (
        "RSB210",
        BASE,
        "    table - table)",
        "    table - table\n    lamp)",
        16,
        5,
        "'lamp' has no category; write 'lamp - CATEGORY'",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
