"""RSB413, RSB420 (:mod:`rsb_mj.lang.rules.semantics_goal`): one failing fixture per rule and
goal shape, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import A2A_BASE, BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB413",
        BASE,
        "(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
        "(:goal (And (In block_a table_answer_zone)))",
        26,
        3,
        ":goal never mentions ?answer, so success does not depend on the question",
    ),
    (
        "RSB420",
        BASE,
        "(Grasped ?c - candidate)",
        "(Grasped block_a)",
        25,
        3,
        ":grasp must range over the candidates, e.g. (Grasped ?c - candidate)",
    ),
    (
        "RSB420",
        A2A_BASE,
        "(:grasp (Grasped cube))",
        "(:grasp (Grasped ?c - candidate))",
        27,
        3,
        ":grasp must grasp what the goal moves, e.g. (Grasped cube)",
    ),
    (
        "RSB413",
        A2A_BASE,
        "(On cube ?answer)",
        "(On cube plate_a)",
        28,
        3,
        ":goal never mentions ?answer, so success does not depend on the question",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
