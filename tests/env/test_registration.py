"""Tests of rsb_mj.env.registration: every id is registered and passes check_env."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import rsb_mj  # noqa: F401  (registers the ids)
from rsb_mj.env.registration import TASK_ENV_ID
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import SUITES

IDS = [s.env_id for s in SUITES.values()] + [TASK_ENV_ID]


def test_every_suite_and_the_task_id_are_registered():
    registry = gymnasium.envs.registration.registry
    assert all(env_id in registry for env_id in IDS)
    assert registry["rsb_mj/RSB-HardMath-10-v0"].kwargs["suite"] == "RSB-HardMath-10"
    assert registry[TASK_ENV_ID].max_episode_steps == 400


def test_registration_does_not_import_mujoco():
    code = "import sys, rsb_mj; assert 'mujoco' not in sys.modules, 'mujoco imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(env_id):
    kwargs = {"task": str(tasks_dir() / "rsb_math_4_objects.bddl")} if env_id == TASK_ENV_ID else {}
    env = gymnasium.make(env_id, width=160, height=120, render_mode="rgb_array", **kwargs)
    check_env(env.unwrapped)
    env.reset(seed=0)
    assert env.render().shape == (120, 160, 3)
    env.close()


def test_camera_less_env_passes_the_passive_checker():
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    obs, _ = env.reset(seed=0)
    assert sorted(obs) == ["state"]
    obs, *_ = env.step(obs["state"])
    assert obs["state"].shape == (14,)
    env.close()
