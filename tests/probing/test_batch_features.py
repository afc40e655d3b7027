"""rsb eval --features with --batch: the same records and feature archives as --batch 1.

Episodes run against :mod:`evaluation.fakes` (no MuJoCo). The policies: one that is not
batched in a policy process (built once per slot), the same policy batched (``act_batch``
and ``slot_features``: one ``act_batch`` request, then a ``features`` request per slot),
and an in-process one that makes a choice (``--features choice``).
"""

from __future__ import annotations

from dataclasses import asdict

import pytest
from evaluation.fakes import fake_env_factory, fake_source_episode

from rsb_mj.evaluation import worker
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.probing.store import load_features
from rsb_mj.tables.episode_source import Source


@pytest.fixture(autouse=True)
def _fake_rows(monkeypatch):
    monkeypatch.setattr(Source, "episode", fake_source_episode)
    yield
    worker.close_all()


def _run(out, policy, features, batch):
    config = EvalConfig(
        suites=("RSB-Math-4",),
        policies=(policy,),
        episodes=5,
        out=out,
        progress=False,
        max_steps=10,
        features=features,
        batch=batch,
    )
    return run_eval(config, env_factory=fake_env_factory)


def _row(record) -> dict:
    row = asdict(record)
    del row["wall_s"]
    return row


@pytest.mark.parametrize(
    ("policy", "features"),
    [
        ("probing.planted:layered", "every:2"),
        ("probing.planted:layered", "first"),
        ("probing.planted:batch_layered", "every:3"),
        ("inprocess:probing.planted:picks", "choice"),
    ],
)
def test_batched_runs_keep_the_records_and_features_of_one_at_a_time(tmp_path, policy, features):
    one = _run(tmp_path / "one", policy, features, batch=1)
    three = _run(tmp_path / "three", policy, features, batch=3)
    assert [_row(r) for r in three] == [_row(r) for r in one]
    assert all(r.features and r.features.get("file") for r in one), [r.features for r in one]
    for a, b in zip(one, three, strict=True):
        got, want = (
            load_features(tmp_path / "three", b.features),
            load_features(tmp_path / "one", a.features),
        )
        assert list(got) == list(want)
        for name in want:
            assert got[name].tobytes() == want[name].tobytes(), (a.index, name)
        assert (tmp_path / "three" / b.features["file"]).read_bytes() == (
            tmp_path / "one" / a.features["file"]
        ).read_bytes()
    if features == "choice":
        assert [r.features["choice_made"] for r in one] == [True] * 5
