"""The shortcut audit: the shipped eval tables pass; planted shortcuts and leaks fail."""

import dataclasses

import pytest

from rsb_mj.errors import EpisodeError
from rsb_mj.suites import SUITES
from rsb_mj.tables.audit import audit, leaks_answer, learned_checks
from rsb_mj.tables.families import load_table
from rsb_mj.tables.heuristics import HEURISTICS, numeric_rank


@pytest.mark.parametrize("name", list(SUITES))
def test_shipped_train_tables_pass(name):
    report = audit(load_table(name, "train"), name)
    assert report.passed, report.format()
    assert report.rows == 1000


@pytest.mark.parametrize("name", list(SUITES))
def test_shipped_eval_tables_pass(name):
    report = audit(load_table(name, "eval"), name, train=load_table(name, "train"))
    assert report.passed, report.format()
    assert report.rows == 500 and report.distinct_questions == 500
    assert {
        "heuristic:most_divisors",
        "heuristic:rarest_units_digit",
        "heuristic:rarest_last_two_digits",
        "heuristic:commonest_magnitude",
        "fitted on train:value_prior",
        "fitted on train:linear_probe",
        "fitted on train:linear_probe_smooth",
        "split (no near-duplicate of a train question)",
    } <= {c.name for c in report.checks}
    assert {
        "letter",
        "position (left to right)",
        "heuristic:median",
        "heuristic:longest",
        "heuristic:word_overlap",
        "heuristic:closest_to_question_number",
        "leak (answer outside option list)",
    } <= {c.name for c in report.checks}
    assert report.lengths["words"]["max"] >= report.lengths["words"]["median"] > 0


def plant_median(episodes):
    """Make the median option correct in every row (the layout and mapping unchanged)."""
    out = []
    for e in episodes:
        order = sorted(range(e.choices), key=lambda i: int(e.options[i]))
        out.append(e.rebound(correct=e.letters[order[(e.choices - 1) // 2]]))
    return out


def test_planted_median_shortcut_fails():
    planted = plant_median(load_table("RSB-Math-4", "eval"))
    report = audit(planted, "planted")
    failed = {c.name for c in report.failures}
    assert {"letter", "numeric rank", "heuristic:median"} <= failed
    median = next(c for c in report.checks if c.name == "heuristic:median")
    assert median.value == 1.0
    assert "FAILED" in report.format()
    assert {numeric_rank(e) for e in planted} == {1}


def test_planted_position_shortcut_fails():
    table = load_table("RSB-Math-10", "eval")
    planted = []
    for e in table:  # put the correct candidate always at the robot's far left
        leftmost = min(e.layout, key=lambda n: e.layout[n].x)
        layout = dict(e.layout)
        layout[e.target], layout[leftmost] = layout[leftmost], layout[e.target]
        planted.append(dataclasses.replace(e, layout=layout))
    report = audit(planted, "planted")
    assert [c.name for c in report.failures] == ["position (left to right)"]


def test_leak_is_detected():
    e = load_table("RSB-Math-4", "eval")[0]
    answer = e.options[e.letters.index(e.correct)]
    leaked = dataclasses.replace(e, instruction=e.instruction + f" hint: {answer}.")
    assert not leaks_answer(e) and leaks_answer(leaked)
    report = audit([leaked], "leak")
    assert "leak (answer outside option list)" in {c.name for c in report.failures}


def test_audit_refuses_empty_and_mixed_tables():
    with pytest.raises(EpisodeError, match="no episodes to audit"):
        audit([], "empty")
    mixed = load_table("RSB-Math-4", "eval")[:2] + load_table("RSB-Math-10", "eval")[:2]
    with pytest.raises(EpisodeError, match=r"mixed choice counts \[4, 10\]"):
        audit(mixed, "mixed")


def plant(episodes, pick):
    """Make ``pick``'s choice correct wherever it applies."""
    return [e.rebound(correct=pick(e) or e.correct) for e in episodes]


@pytest.mark.parametrize(
    ("suite", "name"),
    [
        ("RSB-Math-4", "most_divisors"),
        ("RSB-HardMath-4", "most_divisors"),
        ("RSB-Math-10", "rarest_units_digit"),
        ("RSB-HardMath-10", "rarest_last_two_digits"),
        ("RSB-HardMath-10", "commonest_magnitude"),
    ],
)
def test_planted_number_shape_shortcuts_fail(suite, name):
    report = audit(plant(load_table(suite, "eval"), HEURISTICS[name]), "planted")
    check = next(c for c in report.checks if c.name == f"heuristic:{name}")
    assert not check.passed and check.value == 1.0


def test_fitted_probes_catch_a_planted_rule_and_memorized_values():
    train = plant(load_table("RSB-HardMath-4", "train"), HEURISTICS["smallest"])
    planted = plant(load_table("RSB-HardMath-4", "eval"), HEURISTICS["smallest"])
    checks = {c.name: c for c in learned_checks(planted, train)}
    assert not checks["fitted on train:linear_probe"].passed
    assert checks["fitted on train:linear_probe"].value > 0.9
    # answer values seen in train: the prior remembers them
    train = load_table("RSB-HardMath-4", "train")
    checks = {c.name: c for c in learned_checks(train[:500], train)}
    assert not checks["fitted on train:value_prior"].passed
    assert checks["fitted on train:value_prior"].value == pytest.approx(0.488)
