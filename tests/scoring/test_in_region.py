"""In: the answer-zone signal, and the error for regions without a signal."""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.scoring.predicates import In
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
