"""The environment of a source: the one place that chooses how a task is loaded for it.

A task has a goal; a question task is a goal task whose ``:goal`` binds ``?answer`` to a
candidate. There is one environment class, :class:`rsb_mj.env.rsb_env.RsbEnv`; what the task
file declares decides how it is loaded, and :func:`task_env` is the only caller that looks: a
file with a ``(:question ...)`` block (every suite, a question task file) is loaded as a
question task (candidates, letters, an answer zone: the scene compiler's question scene), a
file without one (a LIBERO / VLA-Arena style goal task, or a shipped goal suite's file,
``"vla-arena::vla_arena/.../x.bddl"``) as a :class:`~rsb_mj.lang.buildable.Task`
(objects, fixtures and regions placed by ``:init``: its goal scene). Both report the signals
their task's scorer reads (:func:`rsb_mj.scoring.scorer.task_scorer`).

:func:`make_task_env` is the entry point of the gymnasium id ``rsb_mj/RSB-Task-v0``
(:mod:`rsb_mj.env.registration`), which takes any task file: a question task's env is built
exactly as the id always built it (``RsbEnv(task=..., **kwargs)``), a goal task's through
:func:`task_env`; a keyword argument that a goal task's env does not take (``suite``,
``split``, ``start_held``, ``render_mode``, or any other name) is refused with an
:class:`~rsb_mj.errors.EnvError` naming it and the ones that apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rsb_mj.env.rsb_env import GoalEnv, RsbEnv
from rsb_mj.errors import EnvError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.task import Task, task_family
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.assets import ObjectSource, resolve_object_source
from rsb_mj.suites import GOAL_MAX_STEPS
from rsb_mj.tables.episode_source import Source, is_goal_source
from rsb_mj.workspace import CAMERAS


def task_env(
    source: str | Path | Source,
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
    quality: str = "fast",
    max_steps: int = GOAL_MAX_STEPS,
    objects: ObjectSource | None = None,
) -> RsbEnv:
    """The environment of ``source`` (a suite name, a task file, or a goal suite's file as
    :func:`~rsb_mj.tables.episode_source.goal_row_source` names it), built by what its task
    declares (see the module docstring).

    Args:
        source: the source, as a run's jobs name it, or as a run resolved it (a job's
            :class:`~rsb_mj.tables.episode_source.Source`: its family, task and suite are
            read from it, not looked up again).
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
        quality: the rendering preset, ``"fast"`` or ``"full"``.
        max_steps: a goal task's step limit [control steps] (a question task's env has
            none of its own: the run's or gymnasium's limit applies).
        objects: a goal task's object source, instead of resolving ``assets``.

    Raises:
        EvalError: for a task file that does not exist;
        RsbError: for an unknown suite (naming the valid ones);
        TaskError: for a goal task rsb_mj cannot build (the itemised list and its tier);
        EnvError: for settings the environment refuses.
    """
    if not isinstance(source, Source):
        source = Source(str(source), str(source), split)  # each fact looked up on first use
    robot: dict[str, Any] = {  # the same robot, cameras and perturbations for either task
        "cameras": cameras,
        "width": width,
        "height": height,
        "quality": quality,
        "control_hz": control_hz,
        "visual_level": visual_level,
        "language_level": language_level,
    }
    if source.goal:
        objects = objects or resolve_object_source(assets or None)
        return RsbEnv(source.task, max_steps=max_steps, objects=objects, **robot)
    suite = "" if source.suite is None else source.suite.name
    return RsbEnv(source.path, suite=suite, split=split, start_held=start_held, **robot)


#: The keyword arguments ``rsb_mj/RSB-Task-v0`` passes to a goal task's env
#: (:func:`task_env`'s), besides ``task``.
GOAL_KWARGS = (
    "cameras",
    "width",
    "height",
    "quality",
    "control_hz",
    "max_steps",
    "objects",
    "assets",
    "visual_level",
    "language_level",
)
#: Keyword arguments that only a question task's env takes.
QUESTION_ONLY_KWARGS = ("suite", "split", "start_held", "render_mode")


def make_task_env(task: str | Path | Problem | Task = "", **kwargs: Any) -> RsbEnv:
    """The env of any task (the entry of ``rsb_mj/RSB-Task-v0``): ``RsbEnv(task, **kwargs)``
    for a question task (exactly as the id has always built it, errors included), and for a
    goal task (a file without a ``(:question ...)`` block, a goal suite's row source, a
    parsed goal :class:`~rsb_mj.lang.ast.Problem` or a :class:`Task`) the env
    :func:`task_env` builds (``RsbEnv`` of the goal task), with the same observations as
    ``rsb_mj/Goal-Task-v0``'s.

    Args:
        task: the task file (or a parsed task).
        **kwargs: the env's settings: a question task's are ``RsbEnv``'s; a goal task's are
            :data:`GOAL_KWARGS` (``assets``: an object folder as ``rsb eval --assets`` takes
            it; without ``assets`` or ``objects``, ``$RSB_MJ_ASSETS`` or the stand-ins).

    Raises:
        EnvError: for a goal task given a keyword argument its env does not take (naming it
            and the ones that apply), besides the envs' own errors.
    """
    if isinstance(task, Task):  # the one Task (Task is its former name)
        goal = task_family(task.problem) == "goal"
    elif isinstance(task, Problem):
        goal = task_family(task) == "goal"
    else:
        goal = isinstance(task, str | Path) and is_goal_source(str(task))
    if not goal:
        return RsbEnv(task, **kwargs)
    if kwargs.get("render_mode", "") is None:  # gymnasium's default: no rendering asked
        del kwargs["render_mode"]
    refused = sorted(k for k in kwargs if k not in GOAL_KWARGS)
    if refused:
        where = str(task.path) if isinstance(task, Problem | Task) else str(task)
        question_only = [k for k in refused if k in QUESTION_ONLY_KWARGS]
        why = (
            f"{', '.join(question_only)} {'applies' if len(question_only) == 1 else 'apply'} "
            "to question tasks only"
            if question_only
            else "not a setting of a goal task's env"
        )
        raise EnvError(
            f"{where} is a goal task: keyword argument{'s' if len(refused) > 1 else ''} "
            f"{', '.join(refused)} refused ({why}); valid choices: {', '.join(GOAL_KWARGS)}"
        )
    if isinstance(task, Problem | Task):
        options = {k: v for k, v in kwargs.items() if k != "assets"}
        if "objects" not in options:
            options["objects"] = resolve_object_source(kwargs.get("assets") or None)
        return GoalEnv(task, **options)
    return task_env(task, **kwargs)
