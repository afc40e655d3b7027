"""The vla-eval plugin on goal tasks: shipped configs, the contract, one episode through
vla-eval's own runner, a suite's frozen rows and a file's seeds as ``rsb eval`` runs them,
bad params refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "vla_eval", reason="the vla-eval plugin needs the extra: pip install -e '.[vla-eval]'"
)

from vla_eval.cli.config_loader import load_config
from vla_eval.registry import resolve_import_string
from vla_eval.specs import check_specs

from rsb_mj.errors import RsbError, TaskError
from rsb_mj.integrations.vla_eval_goal import GoalBenchmark, goal_config_path
from rsb_mj.suites import GOAL_SUITES
from rsb_mj.tables.episode_source import goal_row_source, load_episode
from rsb_mj.tables.goal import file_rows

from .test_vla_eval import ANY_FLOAT, run_one_episode

DATA = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = str(
    DATA
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
COST = str(
    DATA
    / "vla_arena/safety_dynamic_obstacles/level_0/pick_up_the_apple_and_put_it_on_the_bowl.bddl"
)


@pytest.mark.parametrize("suite", list(GOAL_SUITES))
def test_shipped_goal_configs_load_and_name_their_suite(suite):
    cfg = load_config(str(goal_config_path(suite)))
    (entry,) = cfg["benchmarks"]
    assert entry["name"] == suite and entry["params"]["suite"] == suite
    assert entry["params"]["split"] == "eval" and entry["episodes_per_task"] == 5
    assert resolve_import_string(entry["benchmark"]) is GoalBenchmark
    assert "docker" not in cfg


def test_a_goal_suite_is_one_task_per_file():
    bench = GoalBenchmark("VLA-Arena-L0", width=32, height=24)
    tasks = bench.get_tasks()
    assert (
        len(tasks)
        == len(bench.files)
        == len(GOAL_SUITES["vla-arena-l0"].files) - len(bench.skipped)
    )
    assert all(t["suite"] == "vla-arena-l0" and t["name"].startswith("vla_arena/") for t in tasks)
    assert all("/level_0/" in t["name"] and t["name"].endswith(".bddl") for t in tasks)
    assert bench.get_metadata() == {"max_steps": 600, "max_episodes_per_task": 5}
    assert bench.get_metric_keys() == {"success": "mean", "cost": "mean"}
    spec = bench.get_action_spec()
    assert check_specs(spec, spec, bench.get_observation_spec(), bench.get_observation_spec()) == []


def test_a_suite_file_runs_its_frozen_rows_as_rsb_eval_suite_does():
    """Episode 2 from start 1 of a suite's file is row 3 of the file's frozen eval table:
    the row (seed and layout) ``rsb eval --suite vla-arena-l0 --start 1`` runs as its row 3;
    the reset places that layout, not a fresh draw of the seed."""
    bench = GoalBenchmark("vla-arena-l0", start=1, width=32, height=24, send_wrist_image=False)
    assert bench.get_metadata() == {"max_steps": 600, "max_episodes_per_task": 4}
    name = bench.get_tasks()[0]["name"]
    path = bench.files[0]
    row = file_rows("vla-arena-l0", "eval", path)[3]
    assert row.index == 3 and row.task == name and row.frozen
    _, sent = run_one_episode(bench, 2, max_steps=2)
    assert sent[0][1] == {"task": {"name": name, "suite": "vla-arena-l0", "episode_idx": 2}}
    assert bench._env.episode == row
    assert bench._env.seed == row.seed
    assert bench._env.layout == row.layout
    ran = load_episode(goal_row_source("vla-arena-l0", path), "eval", 3)
    assert (ran.seed, ran.draw, ran.layout) == (row.seed, row.draw, row.layout)
    with pytest.raises(RsbError, match=r"episode 4 of .*: the vla-arena-l0 eval table has 4 rows "
                       r"from row 1 \(episodes_per_task <= 4\)"):  # fmt: skip
        bench.reset({"name": name, "episode_idx": 4})
    bench.cleanup()


def test_a_short_table_file_is_left_out_and_named():
    """The one short VLA-Arena file (no eval seed gave a layout) is not run: named with its
    row count and the manifest's reason, as rsb eval --suite names it."""
    bench = GoalBenchmark("vla-arena-l2", width=32, height=24)
    (short,) = [s for s in bench.skipped if "frozen eval table" in s]
    assert "porcelain_mug" in short and ": its frozen eval table has 0 rows (" in short
    assert not any("porcelain_mug" in t["name"] for t in bench.get_tasks())
    train = GoalBenchmark("vla-arena-l2", split="train", start=19, width=32, height=24)
    assert train.get_metadata()["max_episodes_per_task"] == 1
    assert len(train.files) == len(bench.files)


def test_one_episode_through_vla_eval_and_the_seed_of_rsb_eval():
    """Episode 1 from start 2 is seed 3: the same scene GoalEnv draws for seed 3; holding
    still for 3 steps sends the metrics of a failure and the file's cost."""
    from rsb_mj.env.goal_env import GoalEnv

    bench = GoalBenchmark(files=[COST], start=2, width=32, height=24)
    (task,) = bench.get_tasks()
    assert task == {"name": COST, "suite": "files"}
    _, sent = run_one_episode(bench, 1, max_steps=3)
    assert [kind for kind, _ in sent] == ["episode_start"] + ["observation"] * 3 + ["episode_end"]
    assert sent[1][1] == ["images", "state", "task_description"]
    assert sent[-1][1] == {
        "metrics": {"success": False, "cost": 0.0}, "steps": 3, "elapsed_sec": ANY_FLOAT,
    }  # fmt: skip
    env = GoalEnv(COST, cameras=())
    env.reset(seed=3)
    assert bench._env.seed == 3
    assert bench._env.layout == env.layout
    env.close()
    bench.cleanup()


def test_a_file_without_cost_sends_success_only():
    bench = GoalBenchmark(files=[APPLE], width=32, height=24, send_wrist_image=False)
    raw = bench.reset({"name": APPLE, "episode_idx": 0})
    obs = bench.make_obs(raw, {})
    assert sorted(obs["images"]) == ["cam_high"]
    assert obs["task_description"] == "Pick the apple on the table and place it on the plate"
    res = bench.step({"actions": obs["state"]})
    assert bench.get_step_result(res) == {"success": False}
    np.testing.assert_allclose(res.obs["state"], raw["state"], atol=0.05)
    with pytest.raises(RsbError, match=r"task 'x\.bddl' is not one of this benchmark's files"):
        bench.reset({"name": "x.bddl"})
    bench.cleanup()


def test_bad_goal_params_are_refused():
    with pytest.raises(RsbError, match=r"unknown goal suite 'vla-arena-l9'; valid choices: "):
        GoalBenchmark("vla-arena-l9")
    with pytest.raises(RsbError, match="name a goal suite"):
        GoalBenchmark()
    with pytest.raises(RsbError, match=r"unknown split 'test'; valid choices: train, eval"):
        GoalBenchmark("vla-arena-l0", split="test")
    with pytest.raises(RsbError, match=r"start 5: the vla-arena-l0 eval table has rows 0\.\.4"):
        GoalBenchmark("vla-arena-l0", start=5)
    stove = str(DATA / "libero/libero_goal/turn_on_the_stove.bddl")
    with pytest.raises(TaskError, match=r"rsb_mj cannot build this scene \(tier B2\)"):
        GoalBenchmark(files=[stove])
