"""Expert demonstrations of goal tasks: ``rsb demos FILE.bddl`` / ``rsb demos --suite vla-arena``.

A goal task's episodes are seeds (:class:`rsb_mj.env.rsb_env.RsbEnv`): ``-n N --start S``
records seeds ``S .. S+N-1`` of every task file, one HDF5 file each in the demonstration
format of :mod:`rsb_mj.datasets.demo_file` (same states, actions, JPEG frames), named
:func:`goal_demo_filename` (the task's stem, the first 8 hex digits of its file's sha256 and
the seed), so a folder can hold goal and question demonstrations side by side and be exported
together (``rsb export-lerobot``). The instruction is the task's ``:language`` (perturbed at
``language_level`` > 0, :func:`rsb_mj.perturb.language.perturb_goal_instruction`); the file's
``episode`` attribute is the goal episode as JSON: ``{"kind": "goal", "task", "task_sha256",
"suite", "seed", "tier", "source", "objects", "objects_fingerprint", "layout",
"visual_level", "language_level", "perturbation", "head_camera"}`` (``layout``: object -> x, y,
z [m, world frame], yaw [rad] after the draw, before settling; ``head_camera``: the head
camera's pose framed for the task, :mod:`rsb_mj.scene.goal_camera`; the LeRobot export
carries this JSON as each episode's ``rsb_episode``). Further attributes: ``kind``
(``"goal"``), ``task_sha256``, ``objects``, ``cost`` (the summed ``:cost``), ``failure_class``
(:func:`rsb_mj.evaluation.goal_eval.failure_class`) and ``grasped`` (the episode did not end
in a grasp or reset failure: goal episodes do not track the grasp itself).

Expert failures are handled as ``rsb demos`` handles them for question tasks: the episode's
file is written with ``success = False`` and the failure (``rsb export-lerobot`` skips it),
counted and listed, and the exit status is 1; a rerun keeps it (the same seed fails the same
way). An episode that ends in an error (an exception, a layout that cannot be drawn) writes
nothing and is retried by the next run.

The folder is resumable and locked exactly as :func:`rsb_mj.datasets.demos.write_demos`'s:
files are verified on each run (damaged ones rewritten), temporary leftovers removed, one
writer at a time. Episodes run on the same process pool (:mod:`rsb_mj.evaluation.pool`); each
worker keeps the environment of its last task between jobs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.datasets.demo_file import file_sha256, verify_demo, write_demo
from rsb_mj.datasets.demo_folder import hold_settings
from rsb_mj.datasets.demos import Recorder, run_with_progress
from rsb_mj.env.cameras import check_cameras
from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import ExpertError, RsbError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import run_goal_episode
from rsb_mj.lang.linter import load_goal_task
from rsb_mj.lock import lock_folder
from rsb_mj.perturb.language import check_level as check_language
from rsb_mj.perturb.visual import check_level as check_visual
from rsb_mj.policies.spec import make_policy
from rsb_mj.scene.assets import check_objects, resolve_object_source
from rsb_mj.scene.cache import cache_root
from rsb_mj.suites import GOAL_MAX_STEPS
from rsb_mj.version import mujoco_version, rsb_mj_version


def goal_demo_filename(task: str | Path, seed: int) -> str:
    """``episode_<stem>-<sha8>_s<seed>.hdf5``: the file of ``task``'s episode ``seed``
    (``sha8``: the first 8 hex digits of the task file's sha256, so two files of one name
    in different folders, or an edited file, get their own demonstrations)."""
    return f"episode_{Path(task).stem}-{file_sha256(Path(task))[:8]}_s{int(seed):06d}.hdf5"


@dataclass(frozen=True)
class GoalDemoJob:
    """What one worker needs to record one goal episode.

    Attributes:
        task: the task file.
        seed: the episode seed.
        out_dir: the folder the file goes to.
        suite: the goal suite the task was named through (``""`` for a task file).
        cameras: the cameras recorded, in this order.
        width, height: their image size [px].
        visual_level, language_level: the perturbation levels (0-4).
        assets: the object source's asset folder (None: the shipped stand-ins).
        max_steps: the step limit (None: the env's default).
        row: the frozen table row the episode runs (a goal suite's file:
            :mod:`rsb_mj.tables.goal`; its seed is ``seed``), or None for a bare seed.
    """

    task: str
    seed: int
    out_dir: str
    suite: str = ""
    cameras: tuple[str, ...] = ("head", "left_wrist", "right_wrist")
    width: int = 320
    height: int = 240
    visual_level: int = 0
    language_level: int = 0
    assets: str | None = None
    max_steps: int | None = None
    row: Episode | None = None


@dataclass(frozen=True)
class GoalDemoResult:
    """What one goal demonstration came to (``name``: its file name)."""

    name: str
    success: bool = False
    failure: str = ""
    error: str | None = None


#: This process's environment of its last task: (key, env).
_ENV: list[tuple[tuple, Any]] = []


def _env(job: GoalDemoJob) -> Any:
    """The environment of ``job`` (kept for the next job of the same task and settings)."""

    key = (job.task, job.cameras, job.width, job.height, job.visual_level,
           job.language_level, job.assets, job.max_steps)  # fmt: skip
    if _ENV and _ENV[0][0] == key:
        return _ENV[0][1]
    while _ENV:
        _ENV.pop()[1].close()
    env = GoalEnv(
        job.task,
        cameras=job.cameras,
        width=job.width,
        height=job.height,
        max_steps=job.max_steps or GOAL_MAX_STEPS,
        objects=resolve_object_source(job.assets),
        visual_level=job.visual_level,
        language_level=job.language_level,
    )
    _ENV.append((key, env))
    return env


def expert_episode(
    env: Any, seed: int | Episode, on_step: Recorder, max_steps: int
) -> EpisodeRecord:
    """One expert episode of ``env`` from ``seed`` through the runner's rollout
    (:func:`rsb_mj.evaluation.rollout.run_goal_episode`), each (observation, action) handed
    to ``on_step``; returns its record."""
    return run_goal_episode(env, make_policy("expert"), seed, max_steps=max_steps, on_step=on_step)


def write_goal_one(job: GoalDemoJob) -> GoalDemoResult:
    """Record one goal episode and write its file, unless it ended in an error (a reset
    that found no layout, or an exception of the episode).

    Raises:
        WriteError, ExpertError: the file cannot be written or does not read back.
    """
    name = goal_demo_filename(job.task, job.seed)
    try:
        env = _env(job)
        with Recorder(job.cameras) as recorder:
            episode = job.row if job.row is not None else job.seed
            record = expert_episode(env, episode, recorder, job.max_steps or GOAL_MAX_STEPS)
            frames = recorder.frames()
    except RsbError as exc:
        return GoalDemoResult(name, error=f"{type(exc).__name__}: {exc}")
    failure = record.failure_reason or ""
    if record.is_error or record.failure_class == "reset" or not recorder.actions:
        return GoalDemoResult(name, error=record.error or failure or "no step was taken")
    sha = file_sha256(Path(job.task))
    episode = {
        "kind": "goal",
        "task": record.suite,
        "task_sha256": sha,
        "suite": job.suite,
        "seed": job.seed,
        "tier": record.tier,
        "source": record.semantics,
        "objects": record.objects,
        "objects_fingerprint": record.objects_fingerprint,
        "layout": {k: [round(float(x), 6) for x in v] for k, v in env.layout.items()},
        "visual_level": job.visual_level,
        "language_level": job.language_level,
        "perturbation": env.perturbation,
        "head_camera": env.head_camera,
    }
    write_demo(
        Path(job.out_dir) / name,
        episode=None,
        instruction=record.instruction,
        states=np.stack(recorder.states),
        actions=np.stack(recorder.actions),
        images=frames,
        attrs={
            "kind": "goal",
            "suite": job.suite,
            "split": job.row.split if job.row is not None else "",
            "index": job.row.index if job.row is not None else job.seed,
            "seed": job.seed,
            "task": record.suite,
            "episode": json.dumps(episode, sort_keys=True),
            "success": record.success,
            "grasped": record.failure_class not in ("grasp", "reset"),
            "failure": failure,
            "failure_class": record.failure_class,
            "cost": record.cost or 0.0,
            "task_sha256": sha,
            "objects": record.objects,
            "rationale": "",
            "prompt": record.instruction,
            "mujoco_version": mujoco_version(),
            "rsb_mj_version": rsb_mj_version(),
        },
    )
    return GoalDemoResult(name, success=record.success, failure=failure)


def _died(job: GoalDemoJob, cause: str) -> GoalDemoResult:
    return GoalDemoResult(goal_demo_filename(job.task, job.seed), error=cause)


def write_goal_demos(
    tasks: list[str],
    n: int,
    out_dir: Path,
    *,
    start: int = 0,
    suite: str = "",
    jobs: int = 1,
    cameras: tuple[str, ...] = ("head", "left_wrist", "right_wrist"),
    width: int = 320,
    height: int = 240,
    visual_level: int = 0,
    language_level: int = 0,
    assets: str | None = None,
    max_steps: int | None = None,
    progress: bool = True,
    ray: str | None = None,
    rows: dict[str, Sequence[Episode]] | None = None,
) -> dict[str, Any]:
    """Record seeds ``start .. start + n - 1`` of every goal task file in ``tasks`` that
    ``out_dir`` lacks (module docstring); of a task in ``rows`` (a goal suite's file: its
    frozen train rows, :func:`rsb_mj.tables.goal.file_rows`), its rows ``start`` ..
    ``start + n - 1`` instead (their seeds and frozen layouts).

    Returns:
        Counts as :func:`rsb_mj.datasets.demos.write_demos`'s: ``{"total", "existing",
        "written", "failed", "damaged", "seconds", "failures", "errors"}``, ``failures`` and
        ``errors`` listing ``{"name", "failure"}`` / ``{"name", "error"}`` by file name.

    Raises:
        TaskError: a task file that is not a goal task or cannot be built (itemised, with
            its tier); EnvError: unknown cameras, an image size below 1x1 or a level
            outside 0..4; SceneError: an ``assets`` folder whose originals the tasks use
            cannot be built (naming the file); RsbError: an ``RSB_MJ_CACHE`` that cannot be
            written (both before ``out_dir`` is made); LockedError, WriteError: as
            ``write_demos``.
    """

    cameras = tuple(dict.fromkeys(cameras))
    check_cameras(cameras, width, height)
    check_visual(visual_level)
    check_language(language_level, "--language-level")
    cache_root()  # an RSB_MJ_CACHE that cannot be written stops here, not at every episode
    # a bad asset folder too, naming the file (every original the tasks use is built)
    check_objects(assets, [load_goal_task(task) for task in tasks])
    episodes = {
        str(task): (
            list((rows or {})[str(task)][start : start + n])
            if str(task) in (rows or {})
            else [None] * n
        )
        for task in tasks
    }
    work_all = [
        GoalDemoJob(
            str(task),
            row.seed if row is not None else start + k,
            "",
            suite,
            cameras,
            width,
            height,
            visual_level=visual_level,
            language_level=language_level,
            assets=assets,
            max_steps=max_steps,
            row=row,
        )
        for task in tasks
        for k, row in enumerate(episodes[str(task)])
    ]
    with lock_folder(Path(out_dir), "rsb demos") as lock:
        out = lock.folder
        hold_settings(out, "goal", {
            "--cameras": ",".join(cameras), "--width": width,
            "--height": height, "--visual-level": visual_level,
            "--language-level": language_level, "--max-steps": max_steps,
            "--assets": None if assets is None else str(Path(assets).resolve()),
        })  # fmt: skip
        for tmp in out.glob(".episode_*.tmp"):
            tmp.unlink(missing_ok=True)
        damaged: list[str] = []
        work = []
        for job in work_all:
            path = out / goal_demo_filename(job.task, job.seed)
            if path.is_file():
                try:
                    verify_demo(path)
                    continue
                except ExpertError as exc:
                    path.unlink()
                    damaged.append(str(exc))
            work.append(replace(job, out_dir=str(out)))
        results, seconds = run_with_progress(
            write_goal_one, work, _died, f"rsb demos {suite or 'goal tasks'}", jobs=jobs,
            ray=ray, progress=progress,
        )  # fmt: skip
    errors = [{"name": r.name, "error": r.error} for r in results if r.error is not None]
    failures = [
        {"name": r.name, "failure": r.failure} for r in results if r.error is None and not r.success
    ]
    return {
        "total": len(work_all),
        "existing": len(work_all) - len(work),
        "written": len(work) - len(errors),
        "failed": len(failures),
        "damaged": damaged,
        "seconds": seconds,
        "failures": failures,
        "errors": errors,
    }
