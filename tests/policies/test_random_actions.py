"""``random`` (rsb_mj.policies.random_actions): seeded random joint targets, on a real goal
scene and through ``rsb eval``."""

from __future__ import annotations

import json

import numpy as np

from rsb_mj.cli import main
from rsb_mj.policies.random_actions import GRIPPERS, SPREAD, RandomPolicy
from rsb_mj.policies.spec import make_policy
from rsb_mj.resources import tasks_dir

GOAL = tasks_dir() / "libero/libero_goal/put_the_bowl_on_the_plate.bddl"


class _View:
    def __init__(self, seed: int) -> None:
        self.seed, self.control_hz = seed, 20.0


def test_targets_are_seeded_held_a_second_and_near_the_reset_pose():
    home = np.linspace(-1.0, 1.0, 14)
    runs = []
    for seed in (7, 7, 8):
        policy = make_policy("random")
        assert isinstance(policy, RandomPolicy) and policy.simulator
        policy.reset(_View(seed), {"state": home}, {})
        runs.append(np.array([policy.act({}) for _ in range(41)]))
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])
    acts = runs[0]
    assert (acts[:20] == acts[0]).all() and (acts[20:40] == acts[20]).all()
    assert not np.array_equal(acts[0], acts[20]) and not np.array_equal(acts[20], acts[40])
    arms = [i for i in range(14) if i not in GRIPPERS]
    assert np.abs(acts[:, arms] - home[arms]).max() <= SPREAD
    assert ((acts[:, list(GRIPPERS)] >= 0) & (acts[:, list(GRIPPERS)] <= 1)).all()


def test_rsb_eval_runs_random_on_a_goal_task(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", str(GOAL), "--policy", "random", "-n", "1", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    (line,) = (out / "episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert (record["policy"], record["tier"], record["termination"]) == (
        "random",
        "A1",
        "step_limit",
    )
    assert record["steps"] == record["max_steps"] == 600 and record["success"] is False
    assert "| random | 0/1 |" in capsys.readouterr().out
