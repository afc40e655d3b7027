"""Tests of rsb_mj.env.registration: every id is registered and passes check_env."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rsb_mj  # noqa: F401  (registers the ids)
from rsb_mj.env.registration import TASK_ENV_ID
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import LEVEL_SUITES, SUITES

IDS = [s.env_id for s in SUITES.values()] + [TASK_ENV_ID, "rsb_mj/RSB-Math-4-L1-v0"]


def test_every_suite_and_the_task_id_are_registered():
    registry = gymnasium.envs.registration.registry
    assert all(env_id in registry for env_id in IDS)
    assert registry["rsb_mj/RSB-HardMath-10-v0"].kwargs["suite"] == "RSB-HardMath-10"
    for suite in LEVEL_SUITES.values():
        assert registry[suite.env_id].kwargs == {"task": str(suite.path), "suite": suite.name}
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


# ---- gymnasium conventions: sparse reward, terminated, is_success -----------------------


@pytest.fixture(scope="module")
def expert_actions():
    """The built-in expert's actions on RSB-Math-4 eval row 0 (and that episode)."""
    from rsb_mj.datasets.demos import Recorder
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.policies.scripted import ExpertPolicy
    from rsb_mj.tables.episode_source import load_problem
    from rsb_mj.tables.families import load_table

    episode = load_table("RSB-Math-4", "eval")[0]
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    recorder = Recorder()
    record = Rollout(
        env, ExpertPolicy(), episode, load_problem("RSB-Math-4"), max_steps=400, on_step=recorder
    ).run()
    env.close()
    assert record.success
    return episode, np.stack(recorder.actions)


def replay(episode, actions):
    """Steps of ``actions`` through gymnasium.make until the episode ends:
    (rewards, terminated, truncated, last info)."""
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    env.reset(options={"episode": episode})
    rewards = []
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    env.close()
    return rewards, terminated, truncated, info


def test_success_gives_reward_one_on_the_deciding_step_and_terminates(expert_actions):
    episode, actions = expert_actions
    rewards, terminated, truncated, info = replay(episode, actions)
    assert (terminated, truncated, info["is_success"]) == (True, False, True)
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert len(rewards) <= len(actions)


def test_a_wrong_first_grasp_terminates_with_no_reward(expert_actions):
    episode, actions = expert_actions
    row = episode.to_dict()
    letters = sorted(row["mapping"])
    row["correct"] = letters[(letters.index(row["correct"]) + 1) % len(letters)]
    rewards, terminated, truncated, info = replay(row, actions)
    assert (terminated, truncated, info["is_success"]) == (True, False, False)
    assert set(rewards) == {0.0}
    assert len(rewards) < len(actions)  # decided at the grasp, before the place


def test_standing_still_truncates_at_the_suite_limit_undecided():
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    obs, info = env.reset(seed=3)
    assert info["is_success"] is False
    hold = obs["state"]
    total, steps = 0.0, 0
    terminated = truncated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(hold)
        total += reward
        steps += 1
    env.close()
    assert (steps, terminated, truncated, total, info["is_success"]) == (
        400,
        False,
        True,
        0.0,
        False,
    )


# ---- entry point, make_vec and RecordVideo ----------------------------------------------


def test_entry_point_metadata_equals_the_env_class_metadata():
    from rsb_mj.env.registration import make_env
    from rsb_mj.env.rsb_env import RsbEnv

    assert make_env.metadata == RsbEnv.metadata
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    assert type(env.unwrapped) is RsbEnv
    env.close()


VEC_SCRIPT = """
import sys
import gymnasium, numpy as np
import rsb_mj
from rsb_mj.env.registration import make_vec

def main():
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", width=32, height=24)
    env.reset(seed=0)  # the parent renders (EGL) before the workers start
    env.close()
    if sys.argv[1] == "spawn":
        vec = make_vec("rsb_mj/RSB-Math-4-v0", num_envs=2, width=32, height=24)
    else:
        vec = gymnasium.make_vec(
            "rsb_mj/RSB-Math-4-v0", num_envs=1, vectorization_mode="async", width=32, height=24
        )
    obs, info = vec.reset(seed=[1, 2])
    obs, reward, term, trunc, info = vec.step(obs["state"])
    print("shapes", obs["images"]["head"].shape, obs["state"].shape, [float(r) for r in reward])
    vec.close()

if __name__ == "__main__":
    main()
"""


@pytest.mark.skipif(
    __import__("os").environ.get("MUJOCO_GL", "egl") != "egl",
    reason="the fork hang and its error are specific to EGL rendering",
)
def test_make_vec_async_after_rendering_spawns_or_fails_clearly(tmp_path):
    script = tmp_path / "vec.py"
    script.write_text(VEC_SCRIPT)
    ok = subprocess.run(
        [sys.executable, str(script), "spawn"], capture_output=True, text=True, timeout=300
    )
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert "shapes (2, 24, 32, 3) (2, 14) [0.0, 0.0]" in ok.stdout
    fork = subprocess.run(
        [sys.executable, str(script), "fork"], capture_output=True, text=True, timeout=300
    )
    assert fork.returncode != 0
    assert "rsb_mj.errors.EnvError: process" in fork.stderr
    assert "which already rendered with EGL" in fork.stderr
    assert "vector_kwargs={'context': 'spawn'}" in fork.stderr


def test_record_video_writes_an_mp4_of_the_head_camera(tmp_path):
    pytest.importorskip(
        "moviepy", reason="RecordVideo needs the video extra: pip install -e '.[video]'"
    )
    av = pytest.importorskip("av", reason="decoding the video needs PyAV (lerobot-export extra)")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", width=64, height=48, render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda i: True, disable_logger=True)
    obs, _ = env.reset(seed=0)
    for _ in range(9):
        env.step(obs["state"])
    env.close()
    videos = sorted(p.name for p in tmp_path.iterdir())
    assert videos == ["rl-video-episode-0.mp4"]
    with av.open(str(tmp_path / videos[0])) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    # 10 frames recorded (reset + 9 steps); moviepy's writer drops the last one at 20 fps
    assert len(frames) == 9
    assert frames[0].shape == (48, 64, 3)


def test_every_shipped_goal_file_has_an_id_that_builds_its_goal_env():
    """One id per shipped LIBERO / VLA-Arena file (300, all distinct), its task preset and
    the goal step limit; an id builds the file's GoalEnv; a file outside the shipped
    folders has none."""
    from rsb_mj.errors import RsbError
    from rsb_mj.suites import GOAL_MAX_STEPS, GOAL_SUITES, goal_env_id

    files = [*GOAL_SUITES["libero"].files, *GOAL_SUITES["vla-arena"].files]
    ids = [goal_env_id(p) for p in files]
    assert len(set(ids)) == len(ids) == len(files) == 300
    assert set(ids) <= set(gymnasium.envs.registration.registry)
    registry = gymnasium.envs.registration.registry
    apple = next(p for p in GOAL_SUITES["vla-arena-l0"].files if "apple" in p.name)
    spec = registry[goal_env_id(apple)]
    assert spec.kwargs == {"task": str(apple)} and spec.max_episode_steps == GOAL_MAX_STEPS
    assert goal_env_id(apple).startswith("rsb_mj/VLA-Arena.")
    assert GOAL_SUITES["vla-arena-l0"].env_ids[0].startswith("rsb_mj/VLA-Arena.")
    assert "," not in "".join(ids)  # VLA-Arena's commas are left out
    env = gymnasium.make(goal_env_id(apple), cameras=())
    try:
        obs, _ = env.reset(seed=1)
        assert type(env.unwrapped).__name__ == "RsbEnv" and obs["state"].shape == (14,)
        assert env.unwrapped.task.path == str(apple)
    finally:
        env.close()
    with pytest.raises(RsbError, match="not a shipped goal task file"):
        goal_env_id(tasks_dir() / "rsb_math_4.bddl")


# ---- rsb_mj/RSB-Task-v0 takes any task file; rsb_mj/Goal-Task-v0 is its goal alias -----

BOWL = tasks_dir() / "libero" / "libero_goal" / "put_the_bowl_on_the_plate.bddl"


def _reset_and_step(env_id: str, task: str, seed: int):
    """(type name, reset obs, reset info, the first step's 5-tuple) of ``env_id`` on ``task``."""
    env = gymnasium.make(env_id, task=task, width=64, height=48)
    try:
        obs, info = env.reset(seed=seed)
        step = env.step(np.zeros(env.action_space.shape, dtype=env.action_space.dtype))
        return type(env.unwrapped).__name__, obs, info, step
    finally:
        env.close()


def test_the_task_id_builds_a_goal_file_as_the_goal_alias_does():
    """The same env (RsbEnv of the goal task), the same observation keys and arrays after
    reset and one step."""
    from gymnasium.utils.env_checker import data_equivalence

    name, obs, info, step = _reset_and_step(TASK_ENV_ID, str(BOWL), seed=3)
    alias_name, alias_obs, alias_info, alias_step = _reset_and_step(
        "rsb_mj/Goal-Task-v0", str(BOWL), seed=3
    )
    assert name == alias_name == "RsbEnv"
    assert sorted(obs) == sorted(alias_obs) == ["images", "state"]
    assert sorted(obs["images"]) == sorted(alias_obs["images"])
    assert sorted(obs["images"]) == ["head", "left_wrist", "right_wrist"]
    assert obs["images"]["head"].shape == (48, 64, 3)
    assert data_equivalence(obs, alias_obs, exact=True)
    assert data_equivalence(info, alias_info, exact=True)
    assert sorted(step[0]) == sorted(alias_step[0])
    assert data_equivalence(step, alias_step, exact=True)
    assert step[1:4] == (0.0, False, False)


def test_the_task_id_and_its_alias_keep_their_registration():
    """Question and goal files share RSB-Task-v0's entry point and 400-step limit; the
    alias keeps its own entry point (GoalEnv's) and no gymnasium limit (the env's own, 600)."""
    from rsb_mj.env.registration import ENTRY_POINT, GOAL_ENTRY_POINT, GOAL_ENV_ID

    registry = gymnasium.envs.registration.registry
    assert (registry[TASK_ENV_ID].entry_point, registry[TASK_ENV_ID].max_episode_steps) == (
        ENTRY_POINT,
        400,
    )
    assert (registry[GOAL_ENV_ID].entry_point, registry[GOAL_ENV_ID].max_episode_steps) == (
        GOAL_ENTRY_POINT,
        None,
    )
    env = gymnasium.make(TASK_ENV_ID, task=str(BOWL), cameras=(), max_steps=5)
    try:
        assert env.spec.max_episode_steps == 400 and env.unwrapped.max_steps == 5
    finally:
        env.close()


GOAL_SETTINGS = (
    "cameras, width, height, quality, control_hz, max_steps, objects, assets, visual_level, "
    "language_level"
)


@pytest.mark.parametrize(
    ("kwargs", "refused"),
    [
        (
            {"split": "train"},
            "keyword argument split refused (split applies to question tasks only)",
        ),
        (
            {"suite": "RSB-Math-4", "start_held": False},
            "keyword arguments start_held, suite refused (start_held, suite apply to question "
            "tasks only)",
        ),
        (
            {"render_mode": "rgb_array"},
            "keyword argument render_mode refused (render_mode applies to question tasks only)",
        ),
        ({"level": 2}, "keyword argument level refused (not a setting of a goal task's env)"),
    ],
)
def test_the_task_id_refuses_question_settings_for_a_goal_file_naming_them(kwargs, refused):
    from rsb_mj.errors import EnvError

    with pytest.raises(EnvError) as caught:
        gymnasium.make(TASK_ENV_ID, task=str(BOWL), cameras=(), **kwargs)
    assert str(caught.value) == (
        f"{BOWL} is a goal task: {refused}; valid choices: {GOAL_SETTINGS}"
    )


def test_the_task_id_builds_a_question_file_as_before():
    """RsbEnv(task=PATH, **kwargs), its observations and its errors, as before."""
    from gymnasium.utils.env_checker import data_equivalence

    from rsb_mj.env.rsb_env import RsbEnv
    from rsb_mj.scene.assets import STANDINS_SOURCE

    path = str(tasks_dir() / "rsb_math_4_objects.bddl")
    name, obs, info, step = _reset_and_step(TASK_ENV_ID, path, seed=0)
    direct = RsbEnv(path, width=64, height=48)
    try:
        direct_obs, direct_info = direct.reset(seed=0)
        direct_step = direct.step(np.zeros(direct.action_space.shape, direct.action_space.dtype))
    finally:
        direct.close()
    assert name == "RsbEnv"
    assert data_equivalence(obs, direct_obs, exact=True)
    assert data_equivalence(info, direct_info, exact=True)
    assert data_equivalence(step, direct_step, exact=True)
    # one env class: a question task takes the goal task's max_steps too (it truncates)
    env = gymnasium.make(TASK_ENV_ID, task=path, max_steps=2, cameras=())
    try:
        env.reset(seed=0)
        hold = env.unwrapped.state()
        assert [env.step(hold)[3] for _ in range(2)] == [False, True]
    finally:
        env.close()
    from rsb_mj.errors import EnvError

    with pytest.raises(EnvError, match="objects= applies to goal tasks only"):
        RsbEnv(path, cameras=(), objects=STANDINS_SOURCE)
