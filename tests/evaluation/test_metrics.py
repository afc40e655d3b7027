"""Metrics: Wilson intervals, nSG, chance margin, per-suite summaries and confusion."""

import math

import pytest

from rsb_mj.evaluation.metrics import (
    chance_margin,
    chance_verdict,
    confusion,
    nsg,
    suite_metrics,
    summarize,
    wilson,
)
from rsb_mj.evaluation.records import EpisodeRecord


def rec(
    index, *, grasped, success, choice_letter=None, correct="A", suite="RSB-Math-4", policy="p"
):
    mapping = {"A": "block_a", "B": "block_b", "C": "block_c", "D": "block_d"}
    return EpisodeRecord(
        suite=suite, split="eval", index=index, seed=index, policy=policy, task="t.bddl",
        question_id="q", template_id="t", choices=4, correct=correct, target=mapping[correct],
        choice=mapping.get(choice_letter), chosen_option=choice_letter, in_zone=[],
        grasp_step=3 if grasped else None, success_step=9 if success else None,
        grasped=grasped, success=success, goal_final=success,
        termination="success" if success else "step_limit", steps=10, max_steps=400, wall_s=0.1,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [(5, 10, 0.2366, 0.7634), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (0, 0, 0.0, 1.0)],
)
def test_wilson_matches_published_values(k, n, lo, hi):
    assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-4)


def test_nsg_formula_and_undefined_without_grasps():
    assert nsg(0.25, 1.0, 4) == pytest.approx(0.0)
    assert nsg(0.5, 0.5, 10) == pytest.approx(1.0)
    assert nsg(0.1, 0.5, 10) == pytest.approx((0.2 - 0.1) / 0.9)
    assert nsg(0.0, 0.8, 4) == pytest.approx(-1 / 3)
    assert nsg(0.0, 0.0, 4) is None


def test_chance_margin_is_act2answers_delta():
    assert chance_margin(300) == pytest.approx(1.96 * math.sqrt(0.25 / 300))
    assert round(chance_margin(300), 3) == 0.057 and round(chance_margin(140), 3) == 0.083
    assert chance_verdict(0.62, 300) == "above"
    assert chance_verdict(0.55, 300) == "within"
    assert chance_verdict(0.40, 300) == "below"


def test_suite_metrics_counts_rates_and_nsg_interval():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(1, grasped=True, success=False, choice_letter="B"),
        rec(2, grasped=True, success=False, choice_letter="A"),  # right choice, not placed
        rec(3, grasped=False, success=False),
    ]
    m = suite_metrics(records)
    assert (m.episodes, m.gsr.k, m.tsr.k, m.selection.n, m.correct_grasp.k) == (4, 3, 1, 3, 2)
    assert m.nsg == pytest.approx((1 / 3 - 0.25) / 0.75)
    lo, hi = wilson(1, 3)
    assert m.nsg_interval == pytest.approx(((lo - 0.25) / 0.75, (hi - 0.25) / 0.75))


def test_no_grasp_leaves_nsg_undefined():
    m = suite_metrics([rec(0, grasped=False, success=False)])
    assert (m.gsr.value, m.nsg, m.nsg_interval, m.chance_verdict) == (0.0, None, None, "n/a")


def test_summarize_groups_by_policy_and_suite_in_order():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A", policy="x"),
        rec(0, grasped=False, success=False, policy="y", suite="RSB-Math-10"),
        rec(1, grasped=True, success=True, choice_letter="A", policy="x"),
    ]
    assert [(m.policy, m.suite, m.episodes) for m in summarize(records)] == [
        ("x", "RSB-Math-4", 2),
        ("y", "RSB-Math-10", 1),
    ]


def test_confusion_rows_are_correct_columns_chosen_then_none():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A", correct="A"),
        rec(1, grasped=True, success=False, choice_letter="C", correct="B"),
        rec(2, grasped=False, success=False, correct="B"),
    ]
    assert confusion(records, 4) == [
        [1, 0, 0, 0, 0],
        [0, 0, 1, 0, 1],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
    ]
