"""What a policy may hand over as features, which queries each --features mode keeps, and the
archive that stores them."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.errors import EvalError, PolicyError
from rsb_mj.policies.features import MAX_FEATURE_VALUES, check_features, read_features
from rsb_mj.probing.capture import FeatureMode, FeatureRecorder
from rsb_mj.probing.store import (
    feature_name,
    load_features,
    missing_entry,
    write_features,
)

WHO = "policy my:make"


def test_features_keep_the_policys_layer_order_as_float32():
    got = check_features({"b": [1, 2], "a": np.arange(3, dtype=np.float16)}, WHO)
    assert list(got) == ["b", "a"]
    assert [a.dtype for a in got.values()] == [np.float32, np.float32]
    assert got["a"].tolist() == [0.0, 1.0, 2.0]
    assert check_features(None, WHO) is None
    assert check_features({}, WHO) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1, 2], "policy my:make: features must be a mapping of layer name -> 1-D array, got list"),
        ({"x": np.zeros((2, 3))}, "layer 'x' has shape (2, 3); expected a non-empty 1-D array"),
        ({"x": np.zeros(0)}, "layer 'x' has shape (0,); expected a non-empty 1-D array"),
        ({"x": ["a", "b"]}, "layer 'x' has dtype <U1; numbers only (bool, int, uint, float)"),
        ({"x": [0.0, np.inf]}, "layer 'x' has a non-finite value at index 1 (inf)"),
        ({3: [1.0]}, "layer name 3 must be a string of 1 to 200 characters"),
        ({"": [1.0]}, "layer name '' must be a string of 1 to 200 characters"),
        (
            {"a": np.zeros(MAX_FEATURE_VALUES), "b": np.zeros(1)},
            f"features hold more than {MAX_FEATURE_VALUES} values in one act",
        ),
    ],
)
def test_what_is_not_a_layer_is_refused_naming_it(value, message):
    with pytest.raises(PolicyError) as err:
        check_features(value, WHO)
    assert message in str(err.value)
    assert str(err.value).startswith("policy my:make: ")


def test_features_are_an_attribute_or_a_method():
    class Attr:
        features = {"a": [1.0]}  # noqa: RUF012 - what a user writes

    class Method:
        def features(self):
            return {"m": [2.0]}

    assert read_features(Attr()) == {"a": [1.0]}
    assert read_features(Method()) == {"m": [2.0]}
    assert read_features(object()) is None


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("first", FeatureMode("first")),
        ("choice", FeatureMode("choice")),
        ("every:3", FeatureMode("every", 3)),
    ],
)
def test_modes_parse_and_print_back(text, mode):
    assert FeatureMode.parse(text) == mode
    assert str(mode) == text


@pytest.mark.parametrize(
    "text", ["", "last", "every", "every:0", "every:-2", "every:x", "every:2.5"]
)
def test_an_unknown_mode_lists_the_valid_ones(text):
    with pytest.raises(EvalError) as err:
        FeatureMode.parse(text)
    assert str(err.value) == (
        f"--features {text!r}; valid choices: first, choice, every:K (K a whole number >= 1)"
    )


def _feeds(recorder: FeatureRecorder, queries: int, grasp_after: int | None = None) -> None:
    """Run ``queries`` queries through ``recorder`` as the rollout does; query q reports the
    value q; the choice falls during query ``grasp_after``'s actions."""
    for q in range(queries):
        if recorder.wants(q):
            recorder.take(lambda q=q: {"x": [float(q)], "y": [q, q]}, q, 10 * q)
        if grasp_after is not None and q >= grasp_after:
            recorder.chose()


def test_first_keeps_the_first_query_that_hands_features_over():
    rec = FeatureRecorder(FeatureMode("first"), WHO)
    assert rec.wants(0)
    rec.take(lambda: None, 0, 0)  # an openpi reset move: no features yet
    assert rec.wants(1)
    rec.take(lambda: {"x": [7.0]}, 1, 25)
    assert not rec.wants(2)
    got = rec.captured()
    assert (got.queries, got.steps, got.layers["x"].tolist()) == ((1,), (25,), [[7.0]])


def test_every_k_keeps_queries_zero_k_two_k():
    rec = FeatureRecorder(FeatureMode("every", 3), WHO)
    _feeds(rec, 8)
    got = rec.captured()
    assert got.queries == (0, 3, 6)
    assert got.steps == (0, 30, 60)
    assert got.layers["y"].tolist() == [[0, 0], [3, 3], [6, 6]]
    assert got.choice_made is None


def test_choice_keeps_the_query_whose_actions_made_the_choice():
    rec = FeatureRecorder(FeatureMode("choice"), WHO)
    _feeds(rec, 9, grasp_after=4)
    got = rec.captured()
    assert (got.queries, got.layers["x"].tolist(), got.choice_made) == ((4,), [[4.0]], True)


def test_choice_without_a_choice_keeps_the_last_query():
    rec = FeatureRecorder(FeatureMode("choice"), WHO)
    _feeds(rec, 5)
    got = rec.captured()
    assert (got.queries, got.choice_made) == ((4,), False)


def test_layers_that_change_within_an_episode_are_an_error_not_a_fault():
    rec = FeatureRecorder(FeatureMode("every", 1), WHO)
    rec.take(lambda: {"x": [1.0], "y": [1.0, 2.0]}, 0, 0)
    rec.take(lambda: {"x": [1.0], "y": [1.0]}, 1, 5)
    assert rec.captured() is None
    assert rec.error == (
        "policy my:make: features of query 1 have layers x (1), y (1), those of query 0 "
        "x (1), y (2); every query of an episode must report the same layers and sizes"
    )
    assert not rec.wants(2)


def test_features_that_raise_are_remembered_and_never_raised():
    rec = FeatureRecorder(FeatureMode("first"), WHO)

    def boom():
        raise RuntimeError("no hooks")

    rec.take(boom, 0, 0)
    assert rec.error == "policy my:make: features raised RuntimeError: no hooks"
    assert rec.captured() is None


def test_an_archive_round_trips_in_layer_order_with_float16_and_float32(tmp_path):
    rec = FeatureRecorder(FeatureMode("every", 2), WHO)
    rec.take(lambda: {"z.conv/1": [1.5, -2.0], "big": [1e6, 0.0]}, 0, 0)
    rec.take(lambda: {"z.conv/1": [0.25, 3.0], "big": [2e6, 1.0]}, 2, 40)
    name = feature_name("A2A-Color", "eval", 7, "my_pkg.net:make", "original")
    assert name == "A2A-Color/eval-00007-my_pkg.net_make-71d2dbb0-original.npz"
    entry = write_features(tmp_path / "features", name, rec.captured())
    assert entry == {
        "mode": "every:2",
        "file": f"features/{name}",
        "layers": [
            {"name": "z.conv/1", "shape": [2, 2], "dtype": "float16"},
            {"name": "big", "shape": [2, 2], "dtype": "float32"},  # beyond float16's range
        ],
        "queries": [0, 2],
        "steps": [0, 40],
        "choice_made": None,
    }
    back = load_features(tmp_path, entry)
    assert list(back) == ["z.conv/1", "big"]
    assert back["z.conv/1"].tolist() == [[1.5, -2.0], [0.25, 3.0]]
    assert back["big"].tolist() == [[1e6, 0.0], [2e6, 1.0]]
    assert not list((tmp_path / "features" / "A2A-Color").glob(".*.tmp"))  # atomic


def test_policies_that_slug_alike_keep_apart():
    a = feature_name("RSB-Math-4", "eval", 0, "a:b", "original")
    b = feature_name("RSB-Math-4", "eval", 0, "a_b", "original")
    assert a != b
    assert feature_name("tasks/geo_6.bddl", "eval", 3, "x", "blank").startswith("geo_6/eval-00003-")


def test_a_missing_or_foreign_archive_is_named(tmp_path):
    rec = FeatureRecorder(FeatureMode("first"), WHO)
    rec.take(lambda: {"x": [1.0, 2.0]}, 0, 0)
    entry = write_features(tmp_path / "features", "S/e.npz", rec.captured())
    with pytest.raises(EvalError, match=r"holds layers \[\('x', \(1, 2\)\)\]...; its record says"):
        load_features(tmp_path, {**entry, "layers": [{"name": "x", "shape": [1, 3]}]})
    (tmp_path / "features" / "S" / "e.npz").unlink()
    with pytest.raises(EvalError) as err:
        load_features(tmp_path, entry)
    assert str(err.value) == (
        f"{tmp_path / 'features' / 'S' / 'e.npz'}: missing (the record names it); rerun rsb eval"
    )
    with pytest.raises(EvalError, match="the record keeps no features \\(none offered\\)"):
        load_features(tmp_path, missing_entry("first", "none offered"))
