"""RSB205-206 (:mod:`rsb_mj.lang.rules.names_arguments`): one failing fixture per rule, with the
exact position and message (tests/lang/rule_cases.py); every registered predicate's arity and
the part arguments are tested in tests/lang/test_predicates.py."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB205",
        BASE,
        "(In ?answer table_answer_zone)",
        "(In ?answer)",
        26,
        15,
        "'In' takes 2 arguments (object, place), got 1",
    ),
    (
        "RSB206",
        BASE,
        "(On block_b table_candidates)",
        "(On table_candidates block_b)",
        22,
        9,
        "argument 1 of 'On' must be an object, got region 'table_candidates'",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
