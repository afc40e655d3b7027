"""CompiledExpression: binding ?answer, free candidate variables, names and connectives."""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import And, Atom, Name, Not, Or, Span, Variable
from rsb_mj.scoring.expression import CompiledExpression

CANDS = ("block_a", "block_b", "block_c", "block_d")
ZONES = ("table_answer_zone",)
IN_ZONE = Atom("In", (Variable("answer"), Name("table_answer_zone")))


def test_answer_is_bound_to_the_correct_candidate(make_signals, wrap):
    d = make_signals(2, 4)
    d["in_zone"][1, 1] = True  # block_b in the zone
    for answer, expected in (("block_b", [False, True]), ("block_a", [False, False])):
        expr = CompiledExpression(IN_ZONE, CANDS, answer, zones=ZONES)
        assert expr.free_variable is None
        assert expr.holds(expr.witnesses(wrap(d))).tolist() == expected


def test_a_candidate_variable_is_existential(make_signals, wrap):
    d = make_signals(1, 4)
    d["in_zone"][0, 3] = True
    expr = CompiledExpression(
        Atom("In", (Variable("c", "candidate"), Name("table_answer_zone"))),
        CANDS,
        "block_a",
        zones=ZONES,
    )
    assert expr.free_variable == "c"
    assert expr.witnesses(wrap(d)).tolist() == [[False, False, False, True]]
    assert expr.holds(expr.witnesses(wrap(d))).tolist() == [True]


def test_connectives_and_candidate_names(make_signals, wrap):
    d = make_signals(3, 4)
    d["in_zone"][1:, 2] = True
    d["contact"][1, 2, 0] = True
    goal = And((IN_ZONE, Atom("Released", (Variable("answer"),))))
    expr = CompiledExpression(goal, CANDS, "block_c", zones=ZONES)
    assert expr.holds(expr.witnesses(wrap(d))).tolist() == [False, False, True]
    either = Or((Atom("In", (Name("block_a"), Name("table_answer_zone"))), Not(IN_ZONE)))
    expr = CompiledExpression(either, CANDS, "block_c", zones=ZONES)
    assert expr.holds(expr.witnesses(wrap(d))).tolist() == [True, False, False]


def test_unknown_candidate_names_the_valid_ones():
    atom = Atom("Released", (Name("block_z"),), span=Span(4, 9, 4, 28))
    with pytest.raises(
        EvalError,
        match=r"t.bddl:4:9: \(Released block_z \.\.\.\) names no candidate; valid choices: "
        r"\?answer, block_a, block_b, block_c, block_d",
    ):
        CompiledExpression(atom, CANDS, "block_a", path="t.bddl", zones=ZONES)


def test_two_free_variables_are_refused():
    expr = And((Atom("Grasped", (Variable("c", "candidate"),)), Atom("Released", (Variable("d"),))))
    with pytest.raises(EvalError, match=r"free variables \['c', 'd'\]; at most one"):
        CompiledExpression(expr, CANDS, "block_a", zones=ZONES)


def test_non_candidate_variable_kinds_are_refused():
    atom = Atom("Released", (Variable("f", "fixture"),))
    with pytest.raises(EvalError, match=r"\?f - fixture cannot be scored; valid kinds: candidate"):
        CompiledExpression(atom, CANDS, "block_a", zones=ZONES)
