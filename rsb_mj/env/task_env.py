"""The environment of a source: the one place that chooses the scene builder of a task.

A task has a goal; a question task is a goal task whose ``:goal`` binds ``?answer`` to a
candidate. What the task file declares decides how its scene is built, and
:func:`task_env` is the only caller that looks: a file with a ``(:question ...)`` block
(every suite, a question task file) gets :class:`rsb_mj.env.rsb_env.RsbEnv` (candidates,
letters, an answer zone), a file without one (a LIBERO / VLA-Arena style goal task, or a
shipped goal suite's file, ``"vla-arena::vla_arena/.../x.bddl"``) gets
:class:`rsb_mj.env.goal_env.GoalEnv` (objects, fixtures and regions placed by ``:init``).
Both take the same action, give the same observation layout and report the signals their
task's scorer reads (:func:`rsb_mj.scoring.scorer.task_scorer`).
"""

from __future__ import annotations

from pathlib import Path

from rsb_mj.env.goal_env import GoalEnv
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.assets import resolve_object_source
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import goal_task, is_goal_source, is_task_file, task_path
from rsb_mj.workspace import CAMERAS


def task_env(
    source: str | Path,
    *,
    split: str = "eval",
    cameras: tuple[str, ...] = CAMERAS,
    width: int = 320,
    height: int = 240,
    control_hz: int = CONTROL_HZ,
    visual_level: int = 0,
    language_level: int = 0,
    start_held: bool = True,
    assets: str = "",
) -> RsbEnv | GoalEnv:
    """The environment of ``source`` (a suite name, a task file, or a goal suite's file as
    :func:`~rsb_mj.tables.episode_source.goal_row_source` names it), built by what its task
    declares (see the module docstring).

    Args:
        source: the source, as a run's jobs name it.
        split: the split a question task's episodes come from (a goal task's rows are
            seeds, the same in every split).
        cameras: the cameras rendered.
        width, height: camera image size [px].
        control_hz: control rate [Hz] (20 or 50).
        visual_level, language_level: VLA-Arena's perturbation levels (0-4).
        start_held: a question task that holds an object at reset (``(Grasped OBJ ARM)`` in
            ``:init``) starts with it in the gripper (``rsb eval --a2a-start held``).
        assets: a goal task's object folder (``rsb eval --assets DIR``; ``""``:
            ``$RSB_MJ_ASSETS``, an installed package's assets, else the stand-ins:
            :func:`rsb_mj.scene.assets.resolve_object_source`).

    Raises:
        EvalError: for a task file that does not exist;
        RsbError: for an unknown suite (naming the valid ones);
        TaskError: for a goal task rsb_mj cannot build (the itemised list and its tier);
        EnvError: for settings the environment refuses.
    """
    source = str(source)
    if is_goal_source(source):
        return GoalEnv(
            goal_task(source),
            cameras=cameras,
            width=width,
            height=height,
            control_hz=control_hz,
            objects=resolve_object_source(assets or None),
            visual_level=visual_level,
            language_level=language_level,
        )
    suite = "" if is_task_file(source) else get_suite(source).name
    return RsbEnv(
        task_path(source),
        suite=suite,
        split=split,
        cameras=cameras,
        width=width,
        height=height,
        control_hz=control_hz,
        visual_level=visual_level,
        language_level=language_level,
        start_held=start_held,
    )
