"""Act2Answer as its paper runs it: the episode starts with the cube in the left gripper
((Grasped cube left_gripper) in the task's :init), so the only action is the placement;
``start_held=False`` (``rsb eval --a2a-start table``) keeps the variant with a grasp."""

import json

import pytest

from rsb_mj.cli import main
from rsb_mj.env import RsbEnv
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.lang import load_task
from rsb_mj.lang.held import held_at_reset
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import A2A_SUITES, get_suite
from rsb_mj.tables.episode_source import load_episode


def test_every_a2a_task_holds_the_cube_in_the_left_gripper():
    for suite in A2A_SUITES.values():
        assert held_at_reset(load_task(suite.path)) == {"cube": "left"}, suite.name


@pytest.mark.parametrize("start_held", [True, False])
def test_the_reset_puts_the_cube_in_the_gripper_and_the_expert_only_places(start_held):
    suite = get_suite("A2A-Color")
    env = RsbEnv(suite.path, suite=suite.name, cameras=(), start_held=start_held)
    episode = load_episode("A2A-Color", "eval", 1)
    obs, info = env.reset(options={"episode": episode})
    lift = float(info["signals"]["lift"][0, 0])
    if start_held:
        assert info["sim"]["held"] == {"cube": "left"}
        assert 0.6 < obs["state"][6] < 0.8 and obs["state"][13] == pytest.approx(1.0, abs=0.01)
        assert 0.02 < lift < 0.05  # held low (the arm hides no plate), closed on the cube
    else:
        assert "held" not in info["sim"] and lift == pytest.approx(0.0, abs=1e-3)
        assert obs["state"][[6, 13]] == pytest.approx([1.0, 1.0], abs=0.01)
    record = Rollout(env, make_policy("expert"), episode, env.problem, max_steps=400).run()
    env.close()
    assert (record.grasped, record.success, record.choice) == (True, True, episode.target)
    if start_held:  # grasped at the first step; the placement alone: under 80 steps
        assert record.sim["held"] == {"cube": "left"}
        assert record.steps < 80
    else:  # approach, descent, close and lift first
        assert record.steps > 100


def test_a2a_start_is_a_setting_of_the_run_folder(tmp_path, capsys):
    out = tmp_path / "run"
    base = ["eval", "--suite", "A2A-Color", "--policy", "noop", "--episodes", "1"]
    base += ["--max-steps", "2", "--out", str(out), "--no-progress"]
    assert main([*base, "--a2a-start", "table"]) == 0
    assert json.loads((out / "run.json").read_text())["a2a_start"] == "table"
    record = json.loads((out / "episodes.jsonl").read_text())
    assert "held" not in record["sim"] and record["grasped"] is False
    capsys.readouterr()
    assert main(base) == 2
    err = capsys.readouterr().err
    assert (
        "this run directory holds --a2a-start table; use another --out for --a2a-start held" in err
    )
    held_out = tmp_path / "held"
    assert main([*base[:-3], "--out", str(held_out), "--no-progress"]) == 0
    record = json.loads((held_out / "episodes.jsonl").read_text())
    # noop commands the state of reset: the held gripper's measured opening (0.74, the cube
    # between the fingers) is an open command (>= 0.5), so it lets go: no grasp (GSR 0)
    assert record["sim"]["held"] == {"cube": "left"}
    assert (record["grasped"], record["steps"]) == (False, 2)
