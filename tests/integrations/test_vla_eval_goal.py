"""The vla-eval plugin on goal tasks: shipped configs, the contract, one episode through
vla-eval's own runner, a suite's frozen rows and a file's seeds as ``rsb eval`` runs them,
bad params refused; the one benchmark class (``RsbBenchmark``) and the former goal plugin's
name (``vla_eval_goal:GoalBenchmark``) kept as its alias."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "vla_eval", reason="the vla-eval plugin needs the extra: pip install -e '.[vla-eval]'"
)

from vla_eval.cli.config_loader import load_config
from vla_eval.registry import resolve_import_string
from vla_eval.specs import check_specs

from rsb_mj.errors import RsbError, SceneError, TaskError
from rsb_mj.integrations.vla_eval import RsbBenchmark, config_path
from rsb_mj.integrations.vla_eval_goal import GoalBenchmark
from rsb_mj.suites import GOAL_SUITES
from rsb_mj.tables.episode_source import goal_row_source, load_episode
from rsb_mj.tables.layouts import file_rows
from tests.lang.lang_samples import unbuildable_stove

from .test_vla_eval import ANY_FLOAT, CapturingConnection, replay_server, run_one_episode

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
    cfg = load_config(str(config_path(suite)))
    (entry,) = cfg["benchmarks"]
    assert entry["name"] == suite and entry["params"]["suite"] == suite
    assert entry["params"]["split"] == "eval" and entry["episodes_per_task"] == 5
    assert resolve_import_string(entry["benchmark"]) is RsbBenchmark
    assert "docker" not in cfg


def test_a_goal_suite_is_one_task_per_file():
    bench = RsbBenchmark("VLA-Arena-L0", width=32, height=24)
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
    bench = RsbBenchmark("vla-arena-l0", start=1, width=32, height=24, send_wrist_image=False)
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
    """The short VLA-Arena level-2 files (too few eval seeds gave a valid start: the porcelain
    mug's water balls never rest; tier-A and tier-B files whose named objects fail rule 1, a
    tier-B layout that does not settle) are not run: each named with its row count and the
    manifest's reason, as rsb eval --suite names it."""
    bench = RsbBenchmark("vla-arena-l2", width=32, height=24)
    shorts = [s for s in bench.skipped if "frozen eval table" in s]
    # the mug, a preposition tomato file (a tomato under the right gripper at home), the
    # strawberry on its mango (1 row), the white bowl pushed out of view under the stove (12
    # before issue 44's tight framing and arms' rule, 8 before its tight camera's floor)
    assert len(shorts) == 4
    empty = ": its frozen eval table has 0 rows (0 of 5 rows: seeds 0, 1, 2, 3, 4"
    assert sum(empty in s for s in shorts) == 3
    (mug,) = [s for s in shorts if "porcelain_mug" in s]
    assert empty in mug and "water_ball_1 is not at rest after 1 s" in mug
    assert sum("rule 1: " in s for s in shorts) == 3
    assert sum("px unoccluded, at least 50: tight head camera" in s for s in shorts) == 1
    names = {t["name"] for t in bench.get_tasks()}
    assert not any(s.split(": its frozen")[0] in names for s in shorts)
    train = RsbBenchmark("vla-arena-l2", split="train", start=19, width=32, height=24)
    assert train.get_metadata()["max_episodes_per_task"] == 1
    # a train row 19 for every eval file but the level-2 unseen-objects apple, the
    # task_workflows egg in the middle layer and the long_horizon peaches (8 train rows since
    # issue 44's tight framing; short train splits: the manifest says why)
    assert {p.name for p in bench.files} - {p.name for p in train.files} == {
        "pick_up_the_apple_and_place_it_in_the_box.bddl",
        "pick_up_the_egg_and_place_it_in_the_middle_layer_of_the_cabinet.bddl",
        "take_the_mango_out_of_the_drawer_and_pick_up_the_peaches_and_place_it_in_the_drawer,"
        "_then_close_the_drawer.bddl",
    }


def test_one_episode_through_vla_eval_and_the_seed_of_rsb_eval():
    """Episode 1 from start 2 is seed 3: the same scene GoalEnv draws for seed 3; holding
    still for 3 steps sends the metrics of a failure and the file's cost."""
    from rsb_mj.env.rsb_env import GoalEnv

    bench = RsbBenchmark(files=[COST], start=2, width=32, height=24)
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
    bench = RsbBenchmark(files=[APPLE], width=32, height=24, send_wrist_image=False)
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


def test_bad_goal_params_are_refused(tmp_path):
    with pytest.raises(RsbError, match=r"unknown goal suite 'vla-arena-l9'; valid choices: "):
        GoalBenchmark("vla-arena-l9")
    with pytest.raises(RsbError, match="name a goal suite"):
        GoalBenchmark()
    with pytest.raises(RsbError, match=r"unknown split 'test'; valid choices: train, eval"):
        RsbBenchmark("vla-arena-l0", split="test")
    with pytest.raises(RsbError, match=r"start 5: the vla-arena-l0 eval table has rows 0\.\.4"):
        RsbBenchmark("vla-arena-l0", start=5)
    # these were accepted and failed every episode's reset
    with pytest.raises(RsbError, match=r"^visual_level 7: valid choices: 0, 1, 2, 3, 4$"):
        RsbBenchmark("vla-arena-l0", visual_level=7)
    with pytest.raises(RsbError, match=r"^language_level -1: valid choices: 0, 1, 2, 3, 4$"):
        RsbBenchmark("vla-arena-l0", language_level=-1)
    with pytest.raises(RsbError, match=r"^width 320, height 0: each must be 1\.\.4096 pixels$"):
        RsbBenchmark("vla-arena-l0", height=0)
    with pytest.raises(RsbError, match=r"^--assets: /nonexistent is not a folder"):
        RsbBenchmark("vla-arena-l0", assets="/nonexistent")
    stove = str(unbuildable_stove(tmp_path))
    with pytest.raises(TaskError, match=r"rsb_mj cannot build this scene \(tier B2\)"):
        RsbBenchmark(files=[stove])


#: The expert pushes the lemon between the teapots: success at step 125 of seed 0, cost 0 (it
#: keeps the cost terms' clearances).
LEMON = str(
    DATA
    / "vla_arena/safety_dynamic_obstacles/level_0"
    / "push_the_lemon_to_the_region_between_the_teapots.bddl"
)
#: Past the expert's success (125).
STEPS = 150


def _expert_actions() -> list[np.ndarray]:
    """The expert's (14,) actions on seed 0 of LEMON, run on to STEPS (rsb's scale)."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.episodes.episode import Episode
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.policies.spec import make_policy

    env, actions = GoalEnv(Path(LEMON), max_steps=STEPS, cameras=()), []
    episode = Episode.seeded(Path(LEMON), 0, "eval")
    Rollout(env, make_policy("expert"), episode, env.task.problem, max_steps=STEPS,
            on_step=lambda obs, a: actions.append(np.array(a)), sealed=True,
            episode_timeout_s=None).run()  # fmt: skip
    env.close()
    return actions


class ReplayConnection(CapturingConnection):
    """A model server that answers with the given actions, in order."""

    def __init__(self, actions):
        super().__init__()
        self.actions = list(actions)

    async def act(self, obs):
        await super().act(obs)
        return {"actions": self.actions.pop(0)}


def _replay(bench, episode_idx, actions):
    import anyio
    from vla_eval.runners.sync_runner import SyncEpisodeRunner

    conn = ReplayConnection(actions)
    task = {**bench.get_tasks()[0], "episode_idx": episode_idx}
    result = anyio.run(lambda: SyncEpisodeRunner().run_episode(bench, task, conn, max_steps=STEPS))
    return result, conn.sent


def test_a_sealed_goal_run_sends_no_outcome_runs_to_max_steps_and_signs_the_outcomes(
    tmp_path, capsys
):
    from rsb_mj.evaluation.sealed import Seal, verify
    from rsb_mj.integrations.vla_eval_results import main

    actions = _expert_actions()
    kwargs = {"files": [LEMON], "max_steps": STEPS, "width": 32, "height": 24, "convention": "rsb"}
    plain = RsbBenchmark(**kwargs)
    result, _ = _replay(plain, 0, actions)
    plain.cleanup()
    # an ordinary run ends at the success and tells the server
    assert (result["metrics"], result["steps"]) == ({"success": True, "cost": 0.0}, 125)
    secret, outcomes = tmp_path / "secret.txt", tmp_path / "outcomes.jsonl"
    secret.write_bytes(b"vla-eval goal sealed test secret, 32+ bytes\n")
    bench = RsbBenchmark(**kwargs, sealed=True, outcomes=str(outcomes), secret_file=str(secret))
    assert bench.get_metric_keys() == {}
    result, sent = _replay(bench, 0, actions)
    assert sent[-1][1] == {"metrics": {"sealed": True}, "steps": STEPS, "elapsed_sec": ANY_FLOAT}
    result, sent = run_one_episode(bench, 1, max_steps=STEPS)  # holds still: fails
    assert sent[-1][1] == {"metrics": {"sealed": True}, "steps": STEPS, "elapsed_sec": ANY_FLOAT}
    assert not outcomes.exists()  # nothing written before the run ends
    bench.cleanup()
    lines = [json.loads(line) for line in outcomes.read_text().splitlines()]
    assert verify(outcomes, Seal.read(secret), bench.nonce) == lines[-1]["signature"]
    assert lines[-1]["closing"] == {
        "count": 2, "chain": lines[-2]["signature"], "nonce": bench.nonce
    }  # fmt: skip
    assert [{k: v for k, v in line.items() if k != "signature"} for line in lines[:-1]] == [
        {"task": LEMON, "suite": "files", "row": 0, "success": True, "cost": 0.0,
         "policy_fault": False},
        {"task": LEMON, "suite": "files", "row": 1, "success": False, "cost": 0.0,
         "policy_fault": False},
    ]  # fmt: skip
    assert main(["--outcomes", str(outcomes), "--secret-file", str(secret)]) == 0
    assert capsys.readouterr().out.splitlines()[2] == (
        f"| {LEMON} | 1/2 = 0.500 [0.095, 0.905] | 0.00 | 0 |"
    )
    with pytest.raises(RsbError, match=r"^sealed: true needs outcomes: PATH"):
        RsbBenchmark(files=[LEMON], sealed=True, secret_file=str(secret))


def test_a_sealed_goal_run_through_the_alias_closes_its_outcomes_with_its_own_nonce(
    tmp_path, capsys
):
    """``GoalBenchmark`` (the former goal plugin's name) draws a nonce per instance like
    ``RsbBenchmark``: its outcomes chain from it and end in the closing record naming it;
    the reader refuses the file cut, and as another run's."""
    from rsb_mj.evaluation.sealed import Seal, verify
    from rsb_mj.integrations.vla_eval_results import main

    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"vla-eval goal sealed test secret, 32+ bytes\n")
    secret.chmod(0o600)

    def run(name):
        bench = GoalBenchmark(
            files=[LEMON], max_steps=3, width=32, height=24, convention="rsb", sealed=True,
            outcomes=str(tmp_path / name), secret_file=str(secret),
        )  # fmt: skip
        run_one_episode(bench, 0, max_steps=3)
        bench.cleanup()
        return bench, tmp_path / name

    (first, mine), (second, theirs) = run("mine.jsonl"), run("theirs.jsonl")
    assert first.nonce != second.nonce
    line, closing = (json.loads(row) for row in mine.read_text().splitlines())
    assert closing["closing"] == {"count": 1, "chain": line["signature"], "nonce": first.nonce}
    assert verify(mine, Seal.read(secret), first.nonce) == closing["signature"]
    args = ["--outcomes", str(mine), "--secret-file", str(secret), "--nonce", first.nonce]
    assert main(args) == 0
    assert (
        capsys.readouterr().out.splitlines()[2]
        == f"| {LEMON} | 0/1 = 0.000 [0.000, 0.793] | 0.00 | 0 |"
    )
    mine.write_text(theirs.read_text())
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"error: {mine}:2: the outcomes of another run (its closing record names nonce "
        f"{second.nonce[:12]}, --nonce {first.nonce[:12]}); they cannot be reported\n"
    )
    mine.write_text(theirs.read_text().splitlines(keepends=True)[0])
    assert main(args[:4]) == 2
    assert capsys.readouterr().err.startswith(f"error: {mine}: incomplete: 1 signed outcome line ")


def test_the_former_goal_plugin_name_is_the_one_benchmark_on_goal_tasks():
    """Configs that name ``vla_eval_goal:GoalBenchmark`` run what ``RsbBenchmark`` runs."""
    alias = resolve_import_string("rsb_mj.integrations.vla_eval_goal:GoalBenchmark")
    assert alias is GoalBenchmark and issubclass(alias, RsbBenchmark)
    old = GoalBenchmark("vla-arena-l0", width=32, height=24)
    new = RsbBenchmark("vla-arena-l0", width=32, height=24)
    assert old.get_tasks() == new.get_tasks() and old.skipped == new.skipped
    assert old.get_metadata() == new.get_metadata() == {"max_steps": 600,
                                                        "max_episodes_per_task": 5}  # fmt: skip
    assert old.get_metric_keys() == new.get_metric_keys() == {"success": "mean", "cost": "mean"}
    assert old._ALL_RECORD_FIELDS == new._ALL_RECORD_FIELDS == {
        "reward", "done", "success", "action", "state",
    }  # fmt: skip
    assert new._ALL_RECORD_FIELDS | {"grasped"} == RsbBenchmark("RSB-Math-4")._ALL_RECORD_FIELDS


def test_what_one_benchmark_cannot_mix_is_refused(tmp_path):
    with pytest.raises(RsbError, match=r"^files: \[.*\] are goal tasks; they run alone or beside "
                       r"a goal suite, not beside the question suite RSB-Math-4$"):  # fmt: skip
        RsbBenchmark("RSB-Math-4", files=[APPLE])
    with pytest.raises(RsbError, match=r"^shuffle_seed: for question suites; goal tasks have no "):
        RsbBenchmark(files=[APPLE], shuffle_seed=1)
    with pytest.raises(RsbError, match=r"^tables: for question suites; goal tasks have no "):
        RsbBenchmark("vla-arena-l0", tables=str(tmp_path))
    with pytest.raises(RsbError, match=r"^assets: .*: for goal tasks' objects; RSB-Math-4 has"):
        RsbBenchmark("RSB-Math-4", assets=str(tmp_path))


@pytest.mark.parametrize("case", ["fifo", "include-passwd", "text-obj"])
def test_a_hostile_asset_folder_is_refused_at_construction(tmp_path, case):
    # it was accepted, and every episode's reset failed on it; rsb eval --assets refuses it
    # with the same message (tests/scene/test_assets.py)
    from tests.scene.test_assets import BASKET_TASK, _hostile

    folder, message = _hostile(tmp_path, case)
    with pytest.raises(SceneError) as raised:
        RsbBenchmark(files=[str(BASKET_TASK)], assets=str(folder), width=32, height=24)
    assert isinstance(raised.value, RsbError) and str(raised.value) == message


@pytest.mark.parametrize("suite", ["RSB-Math-4", "vla-arena-l0"])
def test_an_unusable_rsb_mj_cache_is_refused_at_construction(tmp_path, monkeypatch, suite):
    from rsb_mj.scene import cache

    a_file = tmp_path / "cache.txt"
    a_file.write_text("")
    monkeypatch.setenv("RSB_MJ_CACHE", str(a_file))
    cache.cache_root.cache_clear()
    try:
        with pytest.raises(RsbError) as raised:
            RsbBenchmark(suite, width=32, height=24)
    finally:
        monkeypatch.undo()
        cache.cache_root.cache_clear()
    assert str(raised.value) == (
        f"RSB_MJ_CACHE={a_file}: a file, not a folder; set RSB_MJ_CACHE to a writable folder, "
        "or unset it to cache in ~/.cache/rsb_mj"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "plugin",
    [
        "rsb_mj.integrations.vla_eval:RsbBenchmark",
        "rsb_mj.integrations.vla_eval_goal:GoalBenchmark",
    ],
)
def test_vla_eval_run_no_docker_replays_a_goal_demo_to_success(tmp_path, plugin):
    """vla-eval's own CLI and runner on a config of one goal task file, naming the one
    benchmark class or the former goal plugin's name, against a server replaying the
    expert's recorded demonstration of seed 0 open loop: success, with the file's cost."""
    import yaml

    from rsb_mj.datasets.demos import demo_job, write_one

    demos = tmp_path / "demos"
    demos.mkdir()
    assert write_one(demo_job(LEMON, "train", 0, demos)).success
    config = tmp_path / "lemon.yaml"
    config.write_text(yaml.safe_dump({
        "server": {"url": "ws://localhost:8000", "timeout": 60},
        "output_dir": str(tmp_path / "results"),
        "benchmarks": [{"benchmark": plugin, "name": "lemon", "mode": "sync",
                        "episodes_per_task": 1,
                        "params": {"files": [LEMON], "width": 64, "height": 48}}],
    }))  # fmt: skip
    with replay_server(demos) as port:
        run = subprocess.run(
            ["vla-eval", "run", "--no-docker", "-c", str(config),
             "--server-url", f"ws://127.0.0.1:{port}"],
            capture_output=True, text=True, timeout=900, env={**os.environ, "NO_COLOR": "1"},
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "lemon: 100.0%" in run.stdout, run.stdout[-3000:]
    (result,) = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("*.json")]
    ((episode,),) = [task["episodes"] for task in result["tasks"]]
    assert episode["metrics"] == {"success": True, "cost": 0.0}  # the expert keeps clear
