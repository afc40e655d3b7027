# ruff: noqa: E501
"""RSB207 and RSB212 (:mod:`rsb_mj.lang.rules.names_references`): one failing fixture per rule,
with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB207",
        BASE,
        "(In ?answer table_answer_zone)",
        "(In ?answer table_answer_zon)",
        26,
        27,
        "'table_answer_zon' in :goal is not a declared object, fixture or region; did you mean 'table_answer_zone'?",
    ),
    (
        "RSB212",
        BASE,
        "(Released ?answer)",
        "(Released ?anser)",
        26,
        56,
        "variable '?anser' is not bound; valid choices: ?answer, or a typed variable such as '?c - candidate'",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
