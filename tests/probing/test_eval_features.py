"""rsb eval --features: what each episode keeps, where, and that scoring never changes.

Episodes run against :mod:`evaluation.fakes` (no MuJoCo; the real-scene run is in
``test_planted.py``); the user policies run in real policy processes.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest
from evaluation.fakes import fake_env_factory, fake_source_episode

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.evaluation import worker
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE, RUN_FILE
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.probing.store import load_features
from rsb_mj.tables.episode_source import Source


@pytest.fixture(autouse=True)
def _fake_rows(monkeypatch):
    monkeypatch.setattr(Source, "episode", fake_source_episode)
    yield
    worker.close_all()


def _config(out, policy, features="every:2", episodes=3, **more):
    return EvalConfig(
        suites=("RSB-Math-4",),
        policies=(policy,),
        episodes=episodes,
        out=out,
        progress=False,
        max_steps=10,
        features=features,
        **more,
    )


def _scored_fields(record) -> dict:
    row = asdict(record)
    for name in ("wall_s", "features", "sim"):
        del row[name]
    return row


def test_a_policy_process_hands_over_its_features_and_the_record_names_them(tmp_path):
    out = tmp_path / "run"
    records = run_eval(_config(out, "probing.planted:layered"), env_factory=fake_env_factory)
    entry = records[1].features
    assert entry == {
        "mode": "every:2",
        "file": "features/RSB-Math-4/eval-00001-probing.planted_layered-"
        + entry["file"].split("-")[-2]
        + "-original.npz",
        "layers": [
            {"name": "input", "shape": [5, 4], "dtype": "float16"},
            {"name": "deep", "shape": [5, 3], "dtype": "float16"},
        ],
        "queries": [0, 2, 4, 6, 8],
        "steps": [0, 2, 4, 6, 8],
        "choice_made": None,
    }
    layers = load_features(out, entry)
    assert layers["deep"][:, 0].tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]  # t after acts 1, 3, ...
    assert layers["input"].tolist() == [[0.0] * 4] * 5  # the fake state
    assert json.loads((out / RUN_FILE).read_text())["features"] == "every:2"
    assert [r.features["file"] for r in read_records(out / RECORDS_FILE)] == [
        r.features["file"] for r in records
    ]


@pytest.mark.parametrize("policy", ["probing.planted:layered", "inprocess:probing.planted:planted"])
def test_features_never_change_what_is_scored(tmp_path, policy):
    with_features = run_eval(_config(tmp_path / "a", policy), env_factory=fake_env_factory)
    without = run_eval(_config(tmp_path / "b", policy, features=""), env_factory=fake_env_factory)
    assert [_scored_fields(r) for r in with_features] == [_scored_fields(r) for r in without]
    assert all(r.features is None for r in without)
    assert all(r.features["file"] for r in with_features)
    assert not (tmp_path / "b" / "features").exists()


def test_a_resumed_run_keeps_its_files_and_refuses_another_mode(tmp_path):
    out = tmp_path / "run"
    first = run_eval(_config(out, "probing.planted:layered"), env_factory=fake_env_factory)
    lines = (out / RECORDS_FILE).read_text()
    again = run_eval(_config(out, "probing.planted:layered"), env_factory=fake_env_factory)
    assert (out / RECORDS_FILE).read_text() == lines  # nothing reran
    assert [r.features for r in again] == [r.features for r in first]
    for mode, said in (("first", "--features first"), ("", "no --features")):
        with pytest.raises(EvalError) as err:
            run_eval(_config(out, "probing.planted:layered", mode), env_factory=fake_env_factory)
        assert str(err.value) == (
            f"{out / RUN_FILE}: this run directory holds --features every:2; use another "
            f"--out for {said}"
        )


def test_broken_features_leave_the_episode_scored_and_say_why(tmp_path):
    bad, none = (
        run_eval(_config(tmp_path / name, f"probing.planted:{name}"), env_factory=fake_env_factory)
        for name in ("bad_features", "no_features")
    )
    assert [r.termination for r in bad] == ["step_limit"] * 3
    assert bad[0].features == {
        "mode": "every:2",
        "file": None,
        "missing": "policy probing.planted:bad_features: features raised PolicyError: policy "
        "probing.planted:bad_features: features: layer 'input' has shape (2, 2); expected a "
        "non-empty 1-D array (pool tokens first, e.g. their mean)",
    }
    assert none[0].features == {
        "mode": "every:2",
        "file": None,
        "missing": "the policy offers no features (no features attribute or method)",
    }
    assert not (tmp_path / "no_features" / "features").exists()


def test_choice_mode_keeps_the_query_that_grasped(tmp_path):
    # The toy oracle closes the gripper on the correct block at its first act.
    records = run_eval(
        _config(tmp_path / "run", "inprocess:probing.planted:picks", "choice"),
        env_factory=fake_env_factory,
    )
    assert records[0].grasp_step == 1
    assert records[0].features["queries"] == [0]
    assert records[0].features["choice_made"] is True
    layers = load_features(tmp_path / "run", records[0].features)
    assert layers["t"].tolist() == [[1.0]]


def test_feature_modules_need_a_policy_that_hooks_modules(tmp_path):
    records = run_eval(
        _config(tmp_path / "run", "probing.planted:layered", feature_modules=("encoder",)),
        env_factory=fake_env_factory,
    )
    assert {r.error_kind for r in records} == {"policy"}
    assert records[0].error == (
        "PolicyError: policy probing.planted:layered: takes no --feature-modules (only "
        "policies built on torch modules hook them, e.g. lerobot:); a Python policy hands over "
        "its features itself (see rsb_mj.policies.features)"
    )
    with pytest.raises(EvalError, match="--feature-modules names where features come from"):
        _config(tmp_path / "x", "probing.planted:layered", "", feature_modules=("encoder",))


def test_the_command_line_refuses_an_unknown_mode(tmp_path, capsys):
    code = main(
        ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "1",
         "--out", str(tmp_path / "r"), "--features", "sometimes"]
    )  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: --features 'sometimes'; valid choices: first, choice, every:K (K a "
        "whole number >= 1)\n"
    )
    assert not (tmp_path / "r").exists()


def test_the_features_archive_is_float16_and_small(tmp_path):
    out = tmp_path / "run"
    records = run_eval(
        _config(out, "inprocess:probing.planted:planted", "first"), env_factory=fake_env_factory
    )
    path = out / records[0].features["file"]
    with np.load(path) as data:
        assert data["layer_003"].dtype == np.float16
        assert data["names"].tolist() == ["L0", "L1", "L2", "L3", "L4", "L5"]
    assert path.stat().st_size < 2000
