"""Gymnasium registration of the rsb environments (imports neither MuJoCo nor the env).

Ids: ``rsb_mj/RSB-Math-4-v0`` ... ``rsb_mj/RSB-General-10-v0`` (one per suite, task file
and suite name preset) and ``rsb_mj/RSB-Task-v0`` (pass ``task=PATH``: any task file, a
question task's or a goal task's; :func:`make_env` builds the env its task declares through
:func:`rsb_mj.env.task_env.make_task_env`). Truncation after the suite's ``max_steps`` control steps
(``RSB-Task-v0``: :data:`~rsb_mj.suites.TASK_MAX_STEPS` for every task; pass
``max_episode_steps=GOAL_MAX_STEPS`` to ``gymnasium.make`` for a goal task's own limit).
``rsb_mj/Goal-Task-v0`` (pass ``task=PATH``), the alias kept for goal task files (a LIBERO
/ VLA-Arena style file, :class:`rsb_mj.env.rsb_env.RsbEnv`), is truncated at the env's
own step limit; every shipped goal task file has an id of its own
(:func:`rsb_mj.suites.goal_env_id`: ``rsb_mj/VLA-Arena.long_horizon.level_0.<stem>-v0``,
``rsb_mj/LIBERO.libero_10.<stem>-v0``; a goal suite's are ``GOAL_SUITES[name].env_ids``),
its ``task`` preset, truncated after :data:`~rsb_mj.suites.GOAL_MAX_STEPS` control steps.

Vectorized envs: an EGL context does not survive ``fork``. A process that has rendered
(any ``reset`` of an env with cameras) and then forks workers, as
``gymnasium.make_vec(..., vectorization_mode="async")`` does by default on Linux, would hang
in the workers' first render. :func:`make_vec` here starts async workers with the
``spawn`` context by default; with gymnasium's own ``make_vec``, pass
``vector_kwargs={"context": "spawn"}``. A worker forked from a process that already rendered
with EGL refuses to build the env with an :class:`~rsb_mj.errors.EnvError` saying so,
instead of hanging.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import gymnasium

from rsb_mj.errors import EnvError
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.suites import (
    A2A_SUITES,
    ALL_SUITES,
    GOAL_MAX_STEPS,
    GOAL_SUITES,
    TASK_MAX_STEPS,
    goal_env_id,
)

ENTRY_POINT = "rsb_mj.env.registration:make_env"
TASK_ENV_ID = "rsb_mj/RSB-Task-v0"
GOAL_ENV_ID = "rsb_mj/Goal-Task-v0"
GOAL_ENTRY_POINT = "rsb_mj.env.registration:make_goal_env"
#: Multiprocessing start method of :func:`make_vec`'s async workers.
DEFAULT_VECTOR_CONTEXT = "spawn"

#: The process that imported this module; a forked child inherits the value.
_IMPORT_PID = os.getpid()


def _parent_rendered_with_egl() -> bool:
    """True in a forked child whose parent had created a MuJoCo EGL context."""
    if os.getpid() == _IMPORT_PID or os.environ.get("MUJOCO_GL", "") != "egl":
        return False
    cameras = sys.modules.get("rsb_mj.env.cameras")
    # ``_HOOKED`` becomes non-empty when the first renderer (GL context) of a process is made.
    return bool(cameras is not None and getattr(cameras, "_HOOKED", None))


def _refuse_after_egl_fork() -> None:
    """Raise in a process forked from one that already rendered with EGL."""
    if _parent_rendered_with_egl():
        raise EnvError(
            f"process {os.getpid()} was forked from process {_IMPORT_PID}, which already "
            "rendered with EGL; EGL contexts do not survive fork and rendering here would hang. "
            "Start workers with the spawn method: rsb_mj.env.registration.make_vec(...) "
            "(spawn by default) or gymnasium.make_vec(..., vectorization_mode='async', "
            "vector_kwargs={'context': 'spawn'})"
        )


def make_env(**kwargs: Any) -> gymnasium.Env:
    """Entry point of every suite's id and of :data:`TASK_ENV_ID`: the env of the ``task``
    file (:func:`rsb_mj.env.task_env.make_task_env`: ``RsbEnv(**kwargs)`` for a question
    task, as always; for a goal task the env :data:`GOAL_ENV_ID` builds).

    Raises:
        EnvError: in a process forked from one that already rendered with EGL (its first
            render would hang); use the ``spawn`` start method for such workers; for a goal
            task given a keyword argument that does not apply to it (naming it and the ones
            that do).
    """
    _refuse_after_egl_fork()
    # deferred: registration imports neither MuJoCo nor the env
    from rsb_mj.env.task_env import make_task_env

    return make_task_env(**kwargs)


def make_goal_env(**kwargs: Any) -> gymnasium.Env:
    """Entry point of :data:`GOAL_ENV_ID` and every shipped goal file's id:
    ``GoalEnv(**kwargs)`` (for a goal file, :data:`TASK_ENV_ID` builds the same env)."""
    # deferred: registration imports neither MuJoCo nor the env
    from rsb_mj.env.rsb_env import GoalEnv

    return GoalEnv(**kwargs)


# gymnasium.make reads the creator's metadata (render modes); RsbEnv.metadata, kept equal
# here so that registration does not import MuJoCo (checked in the tests).
make_env.metadata = {"render_modes": ["rgb_array"], "render_fps": CONTROL_HZ}  # type: ignore[attr-defined]
make_goal_env.metadata = make_env.metadata  # type: ignore[attr-defined]


def make_vec(
    env_id: str,
    num_envs: int = 1,
    vectorization_mode: str = "async",
    vector_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> gymnasium.vector.VectorEnv:
    """``gymnasium.make_vec`` with async workers started by ``spawn`` unless told otherwise.

    Args:
        env_id: a registered id, e.g. ``"rsb_mj/RSB-Math-4-v0"``.
        num_envs: number of sub-environments.
        vectorization_mode: ``"async"`` (default) or ``"sync"``.
        vector_kwargs: passed to the vector env; for async, ``context`` defaults to
            :data:`DEFAULT_VECTOR_CONTEXT`.
        **kwargs: passed to each env (``cameras``, ``width``, ``quality``, ...).
    """
    vector_kwargs = dict(vector_kwargs or {})
    if vectorization_mode == "async":
        vector_kwargs.setdefault("context", DEFAULT_VECTOR_CONTEXT)
    return gymnasium.make_vec(
        env_id,
        num_envs=num_envs,
        vectorization_mode=vectorization_mode,
        vector_kwargs=vector_kwargs,
        **kwargs,
    )


def register_envs() -> None:
    """Register every rsb id with gymnasium (idempotent)."""
    registry = gymnasium.envs.registration.registry
    for suite in (*ALL_SUITES.values(), *A2A_SUITES.values()):
        if suite.env_id not in registry:
            gymnasium.register(
                id=suite.env_id,
                entry_point=ENTRY_POINT,
                max_episode_steps=suite.max_steps,
                kwargs={"task": str(suite.path), "suite": suite.name},
            )
    if TASK_ENV_ID not in registry:
        gymnasium.register(
            id=TASK_ENV_ID, entry_point=ENTRY_POINT, max_episode_steps=TASK_MAX_STEPS
        )
    if GOAL_ENV_ID not in registry:
        gymnasium.register(id=GOAL_ENV_ID, entry_point=GOAL_ENTRY_POINT)
    for suite in ("libero", "vla-arena"):  # every shipped goal file
        for path in GOAL_SUITES[suite].files:
            env_id = goal_env_id(path)
            if env_id not in registry:
                gymnasium.register(
                    id=env_id,
                    entry_point=GOAL_ENTRY_POINT,
                    max_episode_steps=GOAL_MAX_STEPS,
                    kwargs={"task": str(path)},
                )


# Importing this module imports gymnasium; the ids are then registered here (see
# rsb_mj.deferred: the import hook cannot register while this module is half-built).
register_envs()
