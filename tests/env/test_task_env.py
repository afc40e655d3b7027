"""task_env: one place builds a source's environment (one class, RsbEnv), its task loaded by
what it declares: a question task's scene or a goal task's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.env.task_env import task_env
from rsb_mj.errors import EvalError, RsbError, TaskError
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.region_layout import GoalLayout
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import goal_row_source
from tests.lang.lang_samples import unbuildable_stove

DATA = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    DATA
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)


def test_a_suite_and_a_question_file_get_the_question_scene_with_the_settings():
    env = task_env("rsb-math-4", split="train", cameras=(), width=64, height=48, control_hz=50)
    try:
        assert type(env) is RsbEnv and env.task.path == str(get_suite("RSB-Math-4").path)
        assert env.task.candidates == ("block_a", "block_b", "block_c", "block_d")
        assert env.scene.layout is None and env.checker is None and env.episode is None
        assert (env.suite, env.split, env.control_hz) == ("RSB-Math-4", "train", 50)
        assert env.scene.candidates == ("block_a", "block_b", "block_c", "block_d")
    finally:
        env.close()
    path = str(get_suite("A2A-Color").path)
    env = task_env(path, cameras=(), start_held=False)
    try:
        assert type(env) is RsbEnv
        assert (env.suite, env.split, env.start_hold) == ("", "eval", {})
    finally:
        env.close()


def test_a_goal_file_and_a_goal_suite_file_get_the_goal_scene():
    env = task_env(APPLE, cameras=(), language_level=1)
    try:
        assert type(env) is RsbEnv and isinstance(env.scene.layout, GoalLayout)
        assert env.task.path == str(APPLE) and env.language_level == 1
        assert env.goal_info["semantics"] == "vla_arena"
    finally:
        env.close()
    key = "vla_arena/long_horizon/level_0/pick_up_the_apple_and_place_it_in_the_box.bddl"
    env = task_env(goal_row_source("vla-arena", tasks_dir() / key), cameras=())
    try:
        assert type(env) is RsbEnv and isinstance(env.scene.layout, GoalLayout)
        assert env.task.path.endswith("tasks/" + key)
    finally:
        env.close()


def test_unknown_sources_and_unbuildable_goal_files_are_refused(tmp_path):
    with pytest.raises(RsbError, match="unknown suite 'RSB-Nope'; valid choices: RSB-Math-4, "):
        task_env("RSB-Nope", cameras=())
    with pytest.raises(EvalError, match=r"task file 'nowhere\.bddl' not found"):
        task_env("nowhere.bddl", cameras=())
    with pytest.raises(TaskError, match=r"rsb_mj cannot build this scene \(tier B2\)"):
        task_env(str(unbuildable_stove(tmp_path)), cameras=())


def test_make_task_env_takes_a_parsed_task_of_either_family():
    """rsb_mj/RSB-Task-v0's entry: a parsed goal task or Problem gets its goal scene (objects from
    ``assets`` unless ``objects`` names them), a parsed question Problem RsbEnv."""
    from rsb_mj.env.task_env import make_task_env
    from rsb_mj.lang.linter import load_goal_task
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.scene.assets import STANDINS_SOURCE

    goal = load_goal_task(APPLE)
    for task in (goal, goal.problem):
        env = make_task_env(task, cameras=(), max_steps=7)
        try:
            assert type(env) is RsbEnv and isinstance(env.scene.layout, GoalLayout)
            assert (env.task.path, env.max_steps, env.objects) == (str(APPLE), 7, STANDINS_SOURCE)
        finally:
            env.close()
    with pytest.raises(RsbError, match="RSB_MJ_TEST_NOPE"):
        make_task_env(goal, cameras=(), assets="/RSB_MJ_TEST_NOPE")
    question = parse_file(get_suite("RSB-Math-4").path)
    env = make_task_env(question, cameras=(), suite="RSB-Math-4")
    try:
        assert type(env) is RsbEnv and env.suite == "RSB-Math-4"
    finally:
        env.close()


def test_one_class_shares_the_robot_and_takes_what_differs_from_the_scene():
    """A question task's env and a goal task's are the same class with the same robot
    (action and observation spaces, actuator index); the goal's parts come from its scene
    (a Scene with its GoalLayout, its head camera, its goal info) and a question's are absent."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.scene.compiler import Scene

    question = task_env("rsb-math-4", cameras=())
    goal = GoalEnv(APPLE, cameras=())
    try:
        assert type(question) is type(goal) is RsbEnv
        assert type(question.scene) is Scene and type(goal.scene) is Scene
        assert question.scene.layout is None and isinstance(goal.scene.layout, GoalLayout)
        # one robot index for both; a goal task binds no candidate: its axis is its objects
        for name in ("arm_actuators", "gripper_actuators", "arm_qpos", "finger_qpos"):
            for side in ("left", "right"):
                np.testing.assert_array_equal(
                    getattr(goal.scene, name)[side], getattr(question.scene, name)[side]
                )
        assert goal.scene.candidates == () and goal.scene.axis == tuple(goal.task.objects)
        assert goal.candidates == goal.scene.axis
        assert question.scene.axis == question.scene.candidates
        assert question.action_space == goal.action_space
        assert question.observation_space == goal.observation_space
        assert (question._act_src == goal._act_src).all()
        names = [question.model.actuator(i).name for i in question._act_ids]
        assert names == [goal.model.actuator(i).name for i in goal._act_ids]
        assert (question.goal_info, question.head_camera) == ({}, {})
        # one Task type for both: a question task's names the candidates a binding binds
        assert question.task.candidates == question.scene.candidates and goal.task.candidates == ()
        assert goal.goal_info["tier"] == "A0" and sorted(goal.head_camera) == [
            "fovy",
            "pos",
            "xyaxes",
        ]
        assert (question.max_steps, goal.max_steps) == (None, 600)
        _, info = goal.reset(seed=0)
        assert info["sim"]["head_camera"] == goal.head_camera and "signals" not in info
        assert info["episode"].seed == 0
        assert goal.layout == dict(goal.scene.layout.reset(goal.data, 0))
    finally:
        question.close()
        goal.close()
    with pytest.raises(TaskError, match="question"):
        GoalEnv(get_suite("RSB-Math-4").path, cameras=())
