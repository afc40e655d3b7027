# ruff: noqa: E501
"""RSB410-412, RSB423 (:mod:`rsb_mj.lang.rules.semantics_mapping`): one failing fixture per
rule, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE, BASE_10
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
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
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
