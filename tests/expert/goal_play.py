"""Helpers of the tests that run the expert on a shipped goal file to its end."""

from __future__ import annotations

from pathlib import Path

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.pick_place import PickPlaceExpert

TASKS = Path(__file__).resolve().parents[2] / "tasks"
LIBERO = TASKS / "libero"


def play(env: GoalEnv, expert: PickPlaceExpert, obs: dict) -> tuple[dict, int]:
    """Step ``env`` with ``expert`` from ``obs`` to the episode's end: (last info, steps)."""
    terminated = truncated = False
    info: dict = {}
    steps = 0
    while not (terminated or truncated):
        obs, _, terminated, truncated, info = env.step(expert.act(obs))
        steps += 1
    return info, steps


def run_goal(path: Path, seed: int) -> tuple[GoalEnv, PickPlaceExpert, dict]:
    """The expert on the goal file ``path``, episode seed ``seed``, played to the end
    (at most 400 steps): the environment (to close), the expert and the last info."""
    env = GoalEnv(path, cameras=(), max_steps=400)
    obs, _ = env.reset(seed=seed)
    expert = PickPlaceExpert(env)
    info, _ = play(env, expert, obs)
    return env, expert, info


def assert_solved(path: Path, seed: int) -> None:
    """The expert succeeds on the goal file ``path``, seed ``seed`` (:func:`run_goal`),
    with no failure of its own."""
    env, expert, info = run_goal(path, seed=seed)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
    finally:
        env.close()
