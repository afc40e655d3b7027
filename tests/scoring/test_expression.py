"""CompiledExpression: ?answer and candidate variables, named objects, supports, connectives."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.expr import And, Atom, Name, Not, Or, Variable
from rsb_mj.lang.nodes import Span
from rsb_mj.scoring.expression import CompiledExpression, subjects
from rsb_mj.scoring.signals import StepSignals

CANDS = ("block_a", "block_b", "block_c", "block_d")
ZONES = ("table_answer_zone",)
IN_ZONE = Atom("In", (Variable("answer"), Name("table_answer_zone")))
PLATES = ("plate_a", "plate_b")
ON_ANSWER = Atom("On", (Name("cube"), Variable("answer")))


def test_answer_ranges_over_the_candidates(make_signals, wrap):
    d = make_signals(2, 4)
    d["in_zone"][1, 1] = True  # block_b in the zone
    expr = CompiledExpression(IN_ZONE, CANDS, zones=ZONES)
    assert (expr.variable, expr.free_variable, expr.objects) == ("answer", None, CANDS)
    assert expr.witnesses(wrap(d)).tolist() == [[False] * 4, [False, True, False, False]]
    assert expr.signals == {"in_zone"}


def test_a_candidate_variable_is_existential(make_signals, wrap):
    d = make_signals(1, 4)
    d["in_zone"][0, 3] = True
    expr = CompiledExpression(
        Atom("In", (Variable("c", "candidate"), Name("table_answer_zone"))), CANDS, zones=ZONES
    )
    assert expr.free_variable == "c"
    assert expr.witnesses(wrap(d)).tolist() == [[False, False, False, True]]
    assert expr.holds(expr.witnesses(wrap(d))).tolist() == [True]


def test_connectives_and_candidate_names(make_signals, wrap):
    d = make_signals(3, 4)
    d["in_zone"][1:, 2] = True
    d["contact"][1, 2, 0] = True
    goal = And((IN_ZONE, Atom("Released", (Variable("answer"),))))
    expr = CompiledExpression(goal, CANDS, zones=ZONES)
    assert expr.witnesses(wrap(d))[:, 2].tolist() == [False, False, True]
    assert expr.signals == {"in_zone", "contact"}
    either = Or((Atom("In", (Name("block_a"), Name("table_answer_zone"))), Not(IN_ZONE)))
    expr = CompiledExpression(either, CANDS, zones=ZONES)
    assert expr.witnesses(wrap(d))[:, 2].tolist() == [True, False, False]
    assert expr.witnesses(wrap(d))[:, 0].tolist() == [True, True, True]


def _cube_signals(s=2):
    """Signals over one object (the cube) and two plates."""
    return {
        "contact": np.zeros((s, 1, 2), bool),
        "on": np.zeros((s, 1, 2), bool),
    }


def test_on_names_what_moves_and_binds_the_answer_to_the_support():
    d = _cube_signals()
    d["on"][1, 0, 1] = True  # the cube rests on plate_b at substep 1
    d["contact"][:, 0, 0] = [True, False]  # held at substep 0, released at 1
    goal = And((ON_ANSWER, Atom("Released", (Name("cube"),))))
    expr = CompiledExpression(goal, PLATES, movers=("cube",))
    assert (expr.variable, expr.objects, expr.signals) == ("answer", ("cube",), {"on", "contact"})
    sig = StepSignals.from_info(d, 1, 2, names=("contact", "on"))
    assert expr.witnesses(sig).tolist() == [[False, False], [False, True]]
    assert expr.place_witnesses(sig).tolist() == [[False, False], [False, True]]
    named = CompiledExpression(
        Atom("On", (Name("cube"), Name("plate_a"))), PLATES, movers=("cube",)
    )
    assert named.variable is None
    assert named.witnesses(sig).tolist() == [[False, False], [False, False]]


def test_the_object_axis_lists_candidates_then_named_objects():
    grasp = Atom("Grasped", (Name("cube"),))
    assert subjects((grasp, ON_ANSWER), PLATES) == ("cube",)
    assert subjects((IN_ZONE, grasp), CANDS) == (*CANDS, "cube")


def test_on_needs_a_candidate_support():
    atom = Atom("On", (Name("cube"), Name("table")), span=Span(7, 3, 7, 20))
    with pytest.raises(
        EvalError,
        match=r"t.bddl:7:3: \(On \.\.\. table\) cannot be scored: its support must be a "
        r"candidate; valid choices: \?answer, \?c - candidate, plate_a, plate_b",
    ):
        CompiledExpression(atom, PLATES, movers=("cube",), path="t.bddl")
    with pytest.raises(
        EvalError, match=r"\(On \.\.\.\) takes 2 argument\(s\) \(object, candidate\)"
    ):
        CompiledExpression(Atom("On", (Name("cube"),)), PLATES, movers=("cube",))


def test_on_puts_a_declared_object_on_a_candidate_not_a_candidate():
    for subject in (Variable("c", "candidate"), Name("plate_a")):
        with pytest.raises(
            EvalError,
            match=r"\(On \.\.\.\) puts an object the task declares on a candidate, not a "
            r"candidate; valid choices: cube",
        ):
            CompiledExpression(Atom("On", (subject, Name("plate_b"))), PLATES, movers=("cube",))


def test_unknown_candidate_names_the_valid_ones():
    atom = Atom("Released", (Name("block_z"),), span=Span(4, 9, 4, 28))
    with pytest.raises(
        EvalError,
        match=r"t.bddl:4:9: \(Released block_z \.\.\.\) names no candidate; valid choices: "
        r"\?answer, block_a, block_b, block_c, block_d$",
    ):
        CompiledExpression(atom, CANDS, path="t.bddl", zones=ZONES)
    with pytest.raises(EvalError, match=r"valid choices: \?answer, plate_a, plate_b, cube$"):
        CompiledExpression(Atom("Released", (Name("table"),)), PLATES, movers=("cube",))


def test_two_variables_are_refused():
    expr = And((Atom("Grasped", (Variable("c", "candidate"),)), Atom("Released", (Variable("d"),))))
    with pytest.raises(EvalError, match=r"variables \['c', 'd'\]; at most one"):
        CompiledExpression(expr, CANDS, zones=ZONES)
    with pytest.raises(EvalError, match=r"variables \['answer', 'c'\]; at most one"):
        CompiledExpression(And((IN_ZONE, Atom("Grasped", (Variable("c"),)))), CANDS, zones=ZONES)


def test_non_candidate_variable_kinds_are_refused():
    atom = Atom("Released", (Variable("f", "fixture"),))
    with pytest.raises(EvalError, match=r"\?f - fixture cannot be scored; valid kinds: candidate"):
        CompiledExpression(atom, CANDS, zones=ZONES)
