"""The vla-eval plugin on goal tasks: shipped configs, the contract, one episode through
vla-eval's own runner, seeds as ``rsb eval`` runs them, bad params refused."""

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
    assert bench.get_metadata() == {"max_steps": 600}
    assert bench.get_metric_keys() == {"success": "mean", "cost": "mean"}
    spec = bench.get_action_spec()
    assert check_specs(spec, spec, bench.get_observation_spec(), bench.get_observation_spec()) == []


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
    stove = str(DATA / "libero/libero_goal/turn_on_the_stove.bddl")
    with pytest.raises(TaskError, match=r"rsb_mj cannot build this scene \(tier B2\)"):
        GoalBenchmark(files=[stove])
