"""Cost terms, weights and the per-episode tally (VLA-Arena's 1 per step, 10 at the end)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang import parse_text
from rsb_mj.scoring.cost import END_COST, STEP_COST, CostMeter, CostTally, CostTerm, cost_terms

TASK = Path(__file__).parents[2] / "tasks" / "rsb_math_4.bddl"


def _problem(cost: str):
    text = TASK.read_text().replace("  (:layout", f"  (:cost {cost})\n  (:layout")
    return parse_text(text, "t.bddl")


def test_weights_are_vla_arenas():
    assert (STEP_COST, END_COST) == (1.0, 10.0)


def test_an_and_block_gives_one_term_per_child():
    meter = CostMeter(_problem("(And (InContact block_a block_b) (Fall block_c))"))
    assert meter.terms == (
        CostTerm("(InContact block_a block_b)", "step"),
        CostTerm("(Fall block_c)", "end"),
    )
    assert meter.implicit_and is False


def test_terms_without_and_are_all_kept_and_flagged():
    problem = _problem("(InContact block_a block_b) (Fall block_c) (Up block_d)")
    assert len(cost_terms(problem)) == 3
    meter = CostMeter(problem)
    assert [t.kind for t in meter.terms] == ["step", "end", "step"]
    assert meter.implicit_and is True


def test_a_term_mixing_step_and_end_predicates_counts_at_the_end():
    meter = CostMeter(_problem("(Or (InContact block_a block_b) (Fall block_c))"))
    assert meter.terms == (CostTerm("(Or (InContact block_a block_b) (Fall block_c))", "end"),)


def test_the_meter_reads_its_probes_once_each():
    meter = CostMeter(
        _problem("(And (InContact block_a block_b) (Not (InContact block_a block_b)))")
    )
    assert [p.name for p in meter.probes] == ["probe/contact/block_a/block_b"] * 2
    assert [p.kind for p in meter.probes] == ["contact", "contact"]


def test_tally_sums_steps_and_end_terms():
    tally = CostTally([CostTerm("(InContact a b)", "step"), CostTerm("(Fall c)", "end")])
    for hits in [(True, True), (False, True), (True, False), (True, True)]:
        tally.update({"cost_violations": hits})
    assert tally.total == 3 * STEP_COST + END_COST
    assert tally.summary() == {
        "1 (InContact a b)": {"kind": "step", "violations": 3, "cost": 3.0},
        "2 (Fall c)": {"kind": "end", "violations": 1, "cost": 10.0},
    }


def test_an_end_term_that_recovers_before_the_end_costs_nothing():
    tally = CostTally([CostTerm("(Fall c)", "end")])
    tally.update({"cost_violations": (True,)})
    tally.update({"cost_violations": (False,)})
    assert tally.total == 0.0


def test_tally_from_reset_info():
    info = {"cost_terms": {"terms": [("(Up a)", "step")], "implicit_and": True}}
    tally = CostTally.from_info(info)
    assert tally is not None
    assert (tally.terms, tally.implicit_and) == ((CostTerm("(Up a)", "step"),), True)
    assert CostTally.from_info({}) is None


def test_tally_rejects_a_step_with_another_term_count():
    tally = CostTally([CostTerm("(Up a)", "step")])
    with pytest.raises(EvalError, match=r"has 2 values; the task has 1 cost terms"):
        tally.update({"cost_violations": (True, False)})


def test_each_term_knows_the_bodies_it_names():
    meter = CostMeter(
        _problem("(And (InContact block_a table) (Or (Up block_b) (Not (Fall block_c))))")
    )
    assert meter.term_bodies == (
        frozenset({"block_a", "table"}),
        frozenset({"block_b", "block_c"}),
    )
