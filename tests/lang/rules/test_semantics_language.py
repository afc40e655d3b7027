# ruff: noqa: E501
"""RSB418 (:mod:`rsb_mj.lang.rules.semantics_language`): a failing fixture with the exact
position and message (tests/lang/rule_cases.py); the rule on real LIBERO and VLA-Arena files
is tested in tests/lang/test_corpus.py."""

import pytest

from ..lang_samples import LIBERO
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB418",
        LIBERO,
        "(:language Put the bowl on the plate)",
        "(:language Put the bowl on the stove)",
        3,
        3,
        ":language 'Put the bowl on the stove' disagrees with the file name 'put_the_bowl_on_the_plate.bddl' ('put the bowl on the plate'); LIBERO prompts come from the file name",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
