"""rsb_mj.evaluate: a policy object evaluated in process, resumable, with a flat dict."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rsb_mj
from rsb_mj.errors import EvalError, RsbError, SceneError
from rsb_mj.evaluation.metrics import wilson
from rsb_mj.policies.scripted import ExpertPolicy


class Still:
    """A plain object with act only: holds the home pose with open grippers."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, obs):
        self.calls += 1
        action = np.array(obs["state"], dtype=float)
        action[[6, 13]] = 1.0
        return action


def test_evaluate_runs_a_policy_object_in_process_and_resumes(tmp_path):
    expert = ExpertPolicy()
    name = expert.name
    out = tmp_path / "step_100"
    results = rsb_mj.evaluate(expert, suites="RSB-Math-4", episodes=2, out=out, name="ckpt")
    assert list(results) == ["RSB-Math-4"] and results.policy == "inprocess:ckpt"
    m = results["RSB-Math-4"]
    assert (m.gsr.k, m.tsr.k, m.episodes, m.errors) == (2, 2, 2, 0)
    assert m.nsg == 1.0 and m.tsr.interval == wilson(2, 2)
    lines = (out / "episodes.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["policy"], r["privileged"], r["index"]) for r in records] == [
        ("inprocess:ckpt", True, 0),
        ("inprocess:ckpt", True, 1),
    ]
    # the object is given back as it was lent: its name, not marked, close() its own
    assert (expert.name, expert.user_in_process, "close" in vars(expert)) == (name, False, False)
    flat = results.flat(prefix="eval/")
    lo, hi = wilson(2, 2)
    assert flat == {
        "eval/RSB-Math-4/gsr": 1.0,
        "eval/RSB-Math-4/gsr_lo": lo,
        "eval/RSB-Math-4/gsr_hi": hi,
        "eval/RSB-Math-4/tsr": 1.0,
        "eval/RSB-Math-4/tsr_lo": lo,
        "eval/RSB-Math-4/tsr_hi": hi,
        "eval/RSB-Math-4/nsg": 1.0,
        "eval/RSB-Math-4/nsg_lo": m.nsg_interval[0],
        "eval/RSB-Math-4/nsg_hi": m.nsg_interval[1],
        "eval/RSB-Math-4/episodes": 2,
        "eval/RSB-Math-4/errors": 0,
    }
    # the same out again: nothing reruns, the same numbers come back
    before = (out / "episodes.jsonl").read_bytes()
    again = rsb_mj.evaluate(Still(), suites=["RSB-Math-4"], episodes=2, out=out, name="ckpt")
    assert (out / "episodes.jsonl").read_bytes() == before
    assert again.flat() == results.flat()


def test_a_plain_object_with_act_is_adapted_and_labelled_by_its_class(tmp_path):
    still = Still()
    results = rsb_mj.evaluate(still, "RSB-Math-4", episodes=1, out=tmp_path, max_steps=3)
    m = results["RSB-Math-4"]
    assert results.policy == "inprocess:Still" and (m.gsr.k, m.tsr.k, m.episodes) == (0, 0, 1)
    assert still.calls == 3 and m.nsg is None
    assert "RSB-Math-4/nsg" not in results.flat() and results.flat()["RSB-Math-4/gsr"] == 0.0


def test_a_spec_or_an_object_without_act_is_refused(tmp_path):
    with pytest.raises(EvalError, match=r"takes a policy object, got the spec 'expert'"):
        rsb_mj.evaluate("expert", out=tmp_path)
    with pytest.raises(
        EvalError,
        match=r"^policy 'inprocess:object': evaluate\(policy\) returned an object without act",
    ):
        rsb_mj.evaluate(object(), out=tmp_path)
    assert not (tmp_path / "episodes.jsonl").exists()


def test_the_training_example_logs_a_flat_dict_per_checkpoint_and_resumes(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, str(repo / "examples" / "evaluate_in_training.py")]
    cmd += ["--steps", "2", "--episodes", "1", "--max-steps", "2", "--out", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=True)
    logged = [json.loads(line) for line in done.stdout.splitlines()]
    lo, hi = wilson(0, 1)
    assert logged == [
        {
            "step": step,
            "rsb/RSB-Math-4/gsr": 0.0,
            "rsb/RSB-Math-4/gsr_lo": lo,
            "rsb/RSB-Math-4/gsr_hi": hi,
            "rsb/RSB-Math-4/tsr": 0.0,
            "rsb/RSB-Math-4/tsr_lo": lo,
            "rsb/RSB-Math-4/tsr_hi": hi,
            "rsb/RSB-Math-4/episodes": 1,
            "rsb/RSB-Math-4/errors": 0,
        }
        for step in (1, 2)
    ]
    first = (tmp_path / "step_1" / "episodes.jsonl").read_bytes()
    assert json.loads(first)["policy"] == "inprocess:trained"
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=True)
    assert again.stdout == done.stdout
    assert (tmp_path / "step_1" / "episodes.jsonl").read_bytes() == first


def test_goal_task_files_give_success_and_cost_keys_without_path_slashes(tmp_path):
    """Two goal files of one stem (VLA-Arena's levels) and one with a ``:cost``: keys are
    ``<stem>/success`` (with the folders that tell two stems apart), ``/cost`` where the
    task has one, never ``gsr``/``tsr`` nor the file's path."""
    suites = Path(__file__).resolve().parents[1] / "data" / "bddl_suites" / "vla_arena"
    stem = "pick_up_the_apple_and_put_it_on_the_bowl"
    cost = suites / "safety_dynamic_obstacles" / "level_0" / f"{stem}.bddl"
    twin = tmp_path / "mine" / f"{stem}.bddl"
    twin.parent.mkdir()
    twin.write_text(cost.read_text())
    plain = "pick_the_apple_on_the_table_and_place_it_on_the_plate"  # no :cost
    apple = suites / "robustness_static_distractors" / "level_0" / f"{plain}.bddl"
    files = [str(cost), str(twin), str(apple)]
    results = rsb_mj.evaluate(Still(), files, episodes=1, out=tmp_path / "run", max_steps=2)
    lo, hi = wilson(0, 1)
    assert results.flat(prefix="rsb/") == {
        f"rsb/level_0.{stem}/success": 0.0,
        f"rsb/level_0.{stem}/success_lo": lo,
        f"rsb/level_0.{stem}/success_hi": hi,
        f"rsb/level_0.{stem}/cost": 0.0,
        f"rsb/level_0.{stem}/episodes": 1,
        f"rsb/level_0.{stem}/errors": 0,
        f"rsb/mine.{stem}/success": 0.0,
        f"rsb/mine.{stem}/success_lo": lo,
        f"rsb/mine.{stem}/success_hi": hi,
        f"rsb/mine.{stem}/cost": 0.0,
        f"rsb/mine.{stem}/episodes": 1,
        f"rsb/mine.{stem}/errors": 0,
        f"rsb/{plain}/success": 0.0,
        f"rsb/{plain}/success_lo": lo,
        f"rsb/{plain}/success_hi": hi,
        f"rsb/{plain}/episodes": 1,
        f"rsb/{plain}/errors": 0,
    }


@pytest.fixture
def fresh_cache_root(monkeypatch):
    """:func:`rsb_mj.scene.cache.cache_root` looked up again in the test and after it."""
    from rsb_mj.scene import cache

    cache.cache_root.cache_clear()
    yield cache
    monkeypatch.undo()  # RSB_MJ_CACHE as before, then looked up again
    cache.cache_root.cache_clear()


@pytest.mark.parametrize("case", ["fifo", "include-passwd", "text-obj"])
@pytest.mark.parametrize("existing", [False, True])
def test_a_hostile_asset_folder_stops_evaluate_before_the_first_episode(tmp_path, case, existing):
    # only rsb eval checked --assets first: evaluate() and run_eval recorded one error per
    # episode (exit 3's "rerun the same command to retry them" cannot help)
    from tests.scene.test_assets import BASKET_TASK, _hostile

    folder, message = _hostile(tmp_path, case)
    out = tmp_path / "run"
    if existing:
        out.mkdir()  # a folder the user made: left as it was, empty
    policy = Still()
    with pytest.raises(SceneError) as raised:
        rsb_mj.evaluate(policy, suites=[str(BASKET_TASK)], episodes=2, out=out, max_steps=3,
                        assets=folder)  # fmt: skip
    assert isinstance(raised.value, RsbError) and str(raised.value) == message
    assert policy.calls == 0
    assert (list(out.iterdir()) == []) if existing else not out.exists()  # no record, no lock


def test_an_unusable_rsb_mj_cache_stops_run_eval_before_the_first_episode(
    tmp_path, monkeypatch, fresh_cache_root
):
    from rsb_mj.evaluation.runner import EvalConfig, run_eval

    a_file = tmp_path / "cache.txt"
    a_file.write_text("")
    monkeypatch.setenv("RSB_MJ_CACHE", str(a_file))
    out = tmp_path / "run"
    config = EvalConfig(suites=("RSB-Math-4",), policies=("noop",), episodes=2, out=out,
                        progress=False)  # fmt: skip
    with pytest.raises(RsbError) as raised:
        run_eval(config)
    assert str(raised.value) == (
        f"RSB_MJ_CACHE={a_file}: a file, not a folder; set RSB_MJ_CACHE to a writable folder, "
        "or unset it to cache in ~/.cache/rsb_mj"
    )
    assert not out.exists()
