"""In: the answer-zone signal, and the error for regions without a signal (rsb); a site's
box (LIBERO, VLA-Arena)."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates import In
from rsb_mj.scoring.predicates.in_region import in_site
from rsb_mj.scoring.signals import StepSignals


def test_in_reads_the_zone_signal(make_signals):
    d = make_signals(2, 4)
    d["in_zone"][1, 3] = True
    out = In(("my_zone",), zones=("my_zone",)).evaluate(StepSignals.from_info(d, 4))
    assert out.tolist() == [[False] * 4, [False, False, False, True]]


def test_other_regions_have_no_signal():
    with pytest.raises(
        EvalError,
        match=r"t.bddl:9:3: \(In \?x table_candidates\) cannot be scored: only the answer zone "
        r"has a signal; valid choices: table_answer_zone",
    ):
        In(("table_candidates",), where="t.bddl:9:3", zones=("table_answer_zone",))


def test_a_zone_with_any_name_has_the_signal_and_none_declared_is_an_error():
    assert In(("table_goal",), zones=("table_goal",)).args == ("table_goal",)
    with pytest.raises(
        EvalError, match=r"valid choices: none \(the task declares no :answer_zone\)"
    ):
        In(("table_answer_zone",))


def test_in_site_lowers_the_floor_by_one_centimetre():
    site, half = np.array([0.0, 0.0, 0.9]), np.array([0.1, 0.05, 0.02])
    assert in_site([0.0, 0.0, 0.9], site, np.eye(3), half)
    assert in_site([0.0, 0.0, 0.871], site, np.eye(3), half)  # floor 0.88 lowered to 0.87
    assert not in_site([0.0, 0.0, 0.869], site, np.eye(3), half)
    assert not in_site([0.0, 0.0, 0.921], site, np.eye(3), half)
    assert not in_site([0.101, 0.0, 0.9], site, np.eye(3), half)
