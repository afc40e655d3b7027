"""The probe's parts: groups, labels, chance, knows-but-does-not-act, and rsb probe's errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.worker import error_record
from rsb_mj.probing.dataset import ProbeSet, groups_of, side_of
from rsb_mj.probing.probe import ProbeSettings, chance_of, permute_groups, probe_layer
from rsb_mj.stats import chance_band


def _record(suite: str, index: int, **changes):
    return dataclasses.replace(
        error_record(Job(suite, "eval", index, "p", 1), "infra", "-"), **changes
    )


def test_a_twin_joins_the_row_of_its_scene_and_the_row_of_its_question():
    rows = [_record("RSB-Math-4", i) for i in range(4)]
    twin = dataclasses.replace(rows[0], variant="counterfactual", question_id=rows[2].question_id)
    blank = dataclasses.replace(rows[3], variant="blank")
    assert len({r.question_id for r in rows}) == 4
    assert groups_of([*rows, twin, blank]).tolist() == [0, 1, 0, 2, 0, 2]


def test_the_plate_orders_of_an_item_are_one_group():
    rows = [_record("A2A-Color", i) for i in range(6)]
    assert [(r.item, r.layout) for r in rows[:2]] == [
        ("a2a-color-0000", "original"),
        ("a2a-color-0000", "swapped"),
    ]
    assert groups_of(rows).tolist() == [0, 0, 1, 1, 2, 2]


def test_side_counts_from_the_robots_left():
    first, second = _record("A2A-Color", 0), _record("A2A-Color", 1)
    assert (first.target, first.layout, side_of(first)) == ("plate_b", "original", "right")
    assert (second.target, second.layout, side_of(second)) == ("plate_b", "swapped", "left")
    assert side_of(_record("RSB-Math-4", 0)) in {f"{k} of 4" for k in range(1, 5)}


def test_chance_is_one_over_n_unless_the_labels_are_unbalanced():
    assert chance_of(np.array(list("ABAB")), 2) == (0.5, "1/N")
    assert chance_of(np.array(list("AAAB")), 2) == (0.75, "majority")
    assert chance_of(np.array(list("ABCD")), 4) == (0.25, "1/N")
    lo, hi = chance_band(0.5, 150)
    assert (round(lo, 4), round(hi, 4)) == (0.42, 0.58)  # Act2Answer's 0.08 at N = 150


def test_group_permutations_move_whole_groups():
    codes = np.array([0, 0, 1, 1, 1, 0, 2])
    groups = np.array([0, 0, 1, 1, 2, 2, 3])
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(30):
        out = permute_groups(codes, groups, rng)
        pairs = {tuple(out[groups == g]) for g in (0, 1, 2)}
        assert pairs <= {(0, 0), (1, 1), (1, 0)}
        assert out[6] == 2  # the only group of its size stays
        seen.add(tuple(out))
    assert len(seen) == 6  # all 3! orders of the three pairs


def _set(labels, acted, features) -> ProbeSet:
    labels = np.asarray(labels)
    n = len(labels)
    return ProbeSet(
        label="p",
        suite="RSB-Math-4",
        choices=2,
        layers=("x",),
        features={"x": np.asarray(features, dtype=np.float32).reshape(n, -1)},
        labels=labels,
        groups=np.arange(n),
        correct=labels,
        acted=np.asarray(acted, dtype=bool),
        records=(),
        left_out={},
    )


def test_knows_but_does_not_act_counts_right_predictions_with_wrong_choices():
    # the layer is the label itself: every prediction is right; 12 of the 40 choices wrong
    labels = ["A", "B"] * 20
    acted = [True] * 28 + [False] * 12
    result = probe_layer(_set(labels, acted, [[v == "B"] for v in labels]), "x")
    assert (result.accuracy, result.verdict) == (1.0, "above")
    assert (result.known, result.known_wrong, result.kbna) == (40, 12, 0.3)
    assert result.permutation_p == pytest.approx(1 / 51)
    assert result.predictions == tuple(labels)


def test_an_uninformative_layer_is_at_chance_and_its_permutations_agree():
    rng = np.random.default_rng(3)
    labels = list("AB" * 40)
    result = probe_layer(_set(labels, [True] * 80, rng.normal(size=(80, 5))), "x")
    assert result.verdict == "chance"
    assert result.permutation_p > 0.05
    assert abs(result.permuted_mean - 0.5) < 0.05


def test_settings_are_checked():
    with pytest.raises(Exception, match="--folds 1: at least 2"):
        ProbeSettings(folds=1)
    with pytest.raises(Exception, match="--C 0: must be positive"):
        ProbeSettings(c=0)


def test_rsb_probe_explains_a_run_without_features(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "episodes.jsonl").write_text("")
    assert main(["probe", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == (
        f"rsb probe: error: {tmp_path / 'run'}: no scored original episode with features; run "
        "rsb eval --features first (or choice, every:K) with a policy that hands them over "
        "(see rsb_mj.policies.features)\n"
    )
    assert not (tmp_path / "run" / "probe").exists()
    assert main(["probe", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "several run directories: name the output folder with --out" in capsys.readouterr().err
