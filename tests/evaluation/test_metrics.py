"""Metrics: Wilson intervals, nSG, chance margin, per-suite summaries and confusion."""

import math

import pytest

from rsb_mj.errors import EvalError
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
from rsb_mj.suites import ALL_SUITES


def rec(
    index,
    *,
    grasped,
    success,
    choice_letter=None,
    correct="A",
    suite="RSB-Math-4",
    policy="p",
    error=None,
    max_steps=400,
    privileged=False,
    choices=None,
):
    """A consistent record (``choices``: the suite's own by default, else 4)."""
    mapping = {"A": "block_a", "B": "block_b", "C": "block_c", "D": "block_d"}
    termination = "error" if error else "success" if success else "step_limit"
    if choices is None:
        choices = ALL_SUITES[suite].choices if suite in ALL_SUITES else 4
    return EpisodeRecord(
        suite=suite, split="eval", index=index, seed=index, policy=policy, task="t.bddl",
        question_id="q", template_id="t", choices=choices, correct=correct,
        target=mapping[correct],
        choice=mapping.get(choice_letter), chosen_option=choice_letter,
        grasped_candidates=[mapping[choice_letter]] if choice_letter else [], in_zone=[],
        grasp_step=3 if grasped else None, success_step=9 if success else None,
        grasped=grasped, correct_choice=bool(grasped and choice_letter == correct),
        success=success, goal_final=success, termination=termination, steps=10,
        max_steps=max_steps, wall_s=0.1, privileged=privileged, error=error,
        error_kind="infra" if error else None,
        sim={"quality": "fast", "control_hz": 20, "mujoco": "3.8.1"},
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
    assert (m.episodes, m.gsr.k, m.tsr.k, m.success_per_grasp.n, m.selection.k) == (4, 3, 1, 3, 2)
    assert (m.errors, m.privileged) == (0, False)
    assert m.nsg == pytest.approx((1 / 3 - 0.25) / 0.75)
    lo, hi = wilson(1, 3)
    assert m.nsg_interval == pytest.approx(((lo - 0.25) / 0.75, (hi - 0.25) / 0.75))


def test_error_episodes_are_counted_apart_and_excluded_from_every_rate():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(1, grasped=False, success=False, error="InfraError: ws://127.0.0.1:9 refused"),
        rec(2, grasped=False, success=False),
    ]
    m = suite_metrics(records)
    assert (m.episodes, m.errors, m.gsr.k, m.gsr.n, m.tsr.k, m.tsr.n) == (2, 1, 1, 2, 1, 2)
    assert m.error_rate == pytest.approx(1 / 3)
    assert confusion(records, 4)[0] == [1, 0, 0, 0, 1]  # the error episode is not a "none"


def test_records_run_with_different_step_limits_are_not_pooled():
    records = [
        rec(0, grasped=False, success=False),
        rec(1, grasped=False, success=False, max_steps=1000),
    ]
    with pytest.raises(
        EvalError,
        match=r"records of p on RSB-Math-4 were run with different settings \(max_steps 400 vs "
        r"1000\); they cannot be pooled",
    ):
        summarize(records)


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


def _variant(r, variant, **changes):
    import dataclasses

    return dataclasses.replace(r, variant=variant, **changes)


def test_counterfactual_pairs_give_consistency_sensitivity_and_stuck_rate():
    from rsb_mj.evaluation.metrics import pair_metrics

    a = rec(0, grasped=True, success=True, choice_letter="A")  # right on both
    a_twin = _variant(rec(0, grasped=True, success=True, choice_letter="B", correct="B"), "cf")
    b = rec(1, grasped=True, success=False, choice_letter="C")  # stuck on C
    b_twin = _variant(rec(1, grasped=True, success=False, choice_letter="C", correct="B"), "cf")
    c = rec(2, grasped=False, success=False)  # no grasp in the original
    c_twin = _variant(rec(2, grasped=True, success=False, choice_letter="A", correct="B"), "cf")
    lone = rec(3, grasped=True, success=True, choice_letter="A")  # no twin: not a pair
    records = [a, b, c, lone] + [_variant(t, "counterfactual") for t in (a_twin, b_twin, c_twin)]
    (m,) = pair_metrics(records)
    assert (m.pairs, m.consistency.k, m.consistency.n) == (3, 1, 3)
    assert (m.sensitivity.k, m.sensitivity.n, m.stuck.k, m.stuck.n) == (1, 2, 1, 2)
    assert m.random_consistency == 1 / 16


def test_ablation_rows_sit_beside_the_original_with_the_drop_interval():
    from rsb_mj.evaluation.metrics import difference_interval
    from rsb_mj.evaluation.tables import ablation_table

    original = [rec(i, grasped=True, success=i < 8, choice_letter="A") for i in range(10)]
    blank = [
        _variant(rec(i, grasped=True, success=i < 3, choice_letter="A"), "blank") for i in range(10)
    ]
    rows = ablation_table(summarize(original + blank))
    assert rows[0][:3] == ["policy", "suite", "instruction"]
    assert rows[1][:7] == [
        "p", "RSB-Math-4", "blank", "10", "30.0 [10.8, 60.3]", "80.0 [49.0, 94.3]",
        "50.0 [6.6, 74.0]",
    ]  # fmt: skip
    lo, hi = difference_interval(summarize(original)[0].tsr, summarize(blank)[0].tsr)
    # Newcombe: 0.5 -+ sqrt((0.8-0.490)^2 + (0.603-0.3)^2), sqrt((0.943-0.8)^2 + (0.3-0.108)^2)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (6.6, 74.0)
