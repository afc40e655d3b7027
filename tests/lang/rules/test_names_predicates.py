# ruff: noqa: E501
"""RSB204 and RSB213 (:mod:`rsb_mj.lang.rules.names_predicates`): failing fixtures with the exact
position and message (tests/lang/rule_cases.py); the registries themselves are tested in
tests/lang/test_predicates.py."""

import pytest

from ..lang_samples import BASE, LIBERO
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB204",
        BASE,
        "(On block_b",
        "(Onn block_b",
        22,
        5,
        "unknown predicate 'Onn'; did you mean 'On'? valid choices: Grasped, In, On, Released",
    ),
    (
        "RSB204",
        LIBERO,
        "(Fall plate_1)",
        "(Grasped plate_1)",
        22,
        15,
        "unknown predicate 'Grasped'; it is rsb's, not LIBERO or VLA-Arena's; valid choices: CheckDistance, CheckForce, CheckGripperContact, CheckGripperContactPart, CheckGripperDistance, CheckGripperDistancePart, Close, Collide, Fall, False, In, InContact, InContactPart, NotIn, NotOn, On, Open, PrintJointState, Stack, Temporal, True, Turnoff, Turnon, Up",
    ),
    (
        "RSB213",
        BASE,
        "(In ?answer table_answer_zone)",
        "(InContact ?answer table)",
        26,
        15,
        "the rsb simulator cannot score 'InContact' (LIBERO, VLA-Arena) in :goal; valid choices there: Grasped, In, On, Released",
    ),
    (
        "RSB213",
        BASE,
        "(On block_b table_candidates)",
        "(NotIn block_b table_candidates)",
        22,
        5,
        "the rsb simulator cannot place objects with 'NotIn' (VLA-Arena) in :init; valid choices there: On",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)
