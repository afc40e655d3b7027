"""Write expert demonstrations: ``rsb demos SUITE --split train -n N -o DIR``.

One HDF5 file per episode (format in :mod:`rsb_mj.datasets.demo_file`), named by the episode's
row index, so the set is resumable: a rerun re-verifies every finished file, keeps the good
ones and writes the missing and damaged ones; a killed run leaves at most hidden temporary
files, which are removed. One writer per folder: the folder is locked (:mod:`rsb_mj.lock`)
while demos are written, and a second ``rsb demos`` on it is refused. Rows of a suite must
lie in its frozen table.

Each demonstration is an ``rsb eval --policy expert`` job (:class:`~rsb_mj.evaluation.jobs.Job`)
run on the evaluation stack: the same episode lookup
(:mod:`rsb_mj.tables.episode_source`), worker caches and rollout loop
(:func:`rsb_mj.evaluation.worker.run_job`, recording through the rollout's ``on_step``
hook), the same policy seed, and the same process pool (:mod:`rsb_mj.evaluation.pool`:
this process, spawned workers or Ray tasks). Only the writer is the demos' own: each worker
writes its episode's file. An episode that ends in an error (the record's ``error``) writes
nothing and is retried by the next run, as ``rsb eval`` retries error records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from rsb_mj.datasets.demo_file import (
    EncodedFrames,
    FrameEncoder,
    episode_filename,
    file_sha256,
    verify_demo,
    write_demo,
)
from rsb_mj.datasets.demo_folder import hold_settings
from rsb_mj.env.cameras import check_cameras
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.rationale import rationale
from rsb_mj.errors import EpisodeError, ExpertError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.pool import run_jobs
from rsb_mj.evaluation.worker import SettingsEnvFactory, run_job
from rsb_mj.lang.ast import Problem
from rsb_mj.lock import lock_folder, make_folder
from rsb_mj.progress import progress as show_progress
from rsb_mj.scene.cache import cache_root
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import (
    check_rows,
    is_task_file,
    label,
    load_episode,
    load_problem,
    step_limit,
    task_path,
)
from rsb_mj.version import mujoco_version, rsb_mj_version

#: The policy spec that demonstrates (the built-in privileged expert).
EXPERT = "expert"


@dataclass(frozen=True)
class DemoJob:
    """What one worker needs to write one episode.

    Attributes:
        job: the episode as ``rsb eval --policy expert`` runs it; ``job.cameras`` are the
            cameras recorded.
        out_dir: the folder the file goes to.
        env_factory: the environment with the recorded image size.
        cot: the training prompt carries the rationale (``--cot``).
    """

    job: Job
    out_dir: str
    env_factory: SettingsEnvFactory
    cot: bool = False


@dataclass(frozen=True)
class DemoResult:
    """What one demonstration came to.

    Attributes:
        index: the episode's row.
        success: the expert succeeded.
        failure: the record's ``failure_reason`` (``""`` on success).
        error: the episode ended in an error (``"Type: message"``; nothing was written),
            else None.
    """

    index: int
    success: bool = False
    failure: str = ""
    error: str | None = None


class Recorder:
    """Collects what a demonstration stores, from the rollout's ``on_step`` hook: the
    observation before each action (state and camera frames) and the action. Camera frames
    are JPEG-encoded in a background thread as they arrive (:class:`FrameEncoder`); close
    the recorder (or use it as a context manager) to stop that thread.

    Args:
        cameras: the cameras whose frames are kept, in this order; None keeps every camera
            of the observation.
    """

    def __init__(self, cameras: tuple[str, ...] | None = None) -> None:
        self.cameras = cameras
        self.states: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self._frames = FrameEncoder()

    def __call__(self, obs: dict[str, Any], action: np.ndarray) -> None:
        self.states.append(np.asarray(obs["state"], dtype=np.float64).copy())
        self.actions.append(np.asarray(action, dtype=np.float64).copy())
        frames = obs.get("images", {})
        for name in frames if self.cameras is None else self.cameras:
            self._frames.add(name, frames[name])

    def frames(self) -> EncodedFrames:
        """The frames recorded so far, JPEG-encoded (waits for the encoder)."""
        return self._frames.result()

    def close(self) -> None:
        """Stop the encoder thread (frames still queued are dropped)."""
        self._frames.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def demo_job(
    source: str,
    split: str,
    index: int,
    out_dir: Path,
    *,
    cameras: tuple[str, ...] = (),
    width: int = 320,
    height: int = 240,
    cot: bool = False,
    visual_level: int = 0,
    language_level: int = 0,
) -> DemoJob:
    """The demonstration of row ``index``: the job ``rsb eval --policy expert`` plans for
    that row (same policy, step limit and episode timeout), rendering ``cameras`` at
    ``width`` x ``height`` px for the recorder, at the perturbation levels given."""
    job = Job(source, split, index, EXPERT, step_limit(source), cameras=tuple(cameras))
    factory = SettingsEnvFactory(
        visual_level=visual_level, language_level=language_level, width=width, height=height
    )
    return DemoJob(job, str(out_dir), factory, cot)


def write_one(demo: DemoJob) -> DemoResult:
    """Run the expert on one episode (:func:`~rsb_mj.evaluation.worker.run_job`, as ``rsb
    eval --policy expert`` does) and write its file, unless the episode ended in an error.

    Raises:
        WriteError, ExpertError: the file cannot be written or does not read back.
    """
    job = demo.job
    with Recorder(job.cameras) as recorder:
        record = run_job(job, demo.env_factory, on_step=recorder)
        if record.is_error:
            return DemoResult(job.index, error=record.error or "")
        frames = recorder.frames()
    failure = record.failure_reason or ""
    episode = load_episode(job.suite, job.split, job.index)
    thought = rationale_of(episode, load_problem(job.suite))
    # the instruction the env gave (the episode's own, or perturbed at a language level)
    factory = demo.env_factory
    levels = {"visual_level": factory.visual_level, "language_level": factory.language_level}
    instruction = (record.instruction if factory.language_level else None) or episode.instruction
    prompt = f"{instruction} <think>{thought}</think>" if demo.cot else instruction
    write_demo(
        Path(demo.out_dir) / episode_filename(job.index),
        episode=episode,
        instruction=instruction,
        states=np.stack(recorder.states),
        actions=np.stack(recorder.actions),
        images=frames,
        attrs={
            "success": record.success,
            "grasped": record.grasped,
            "failure": failure,
            "task_sha256": file_sha256(task_path(job.suite)),
            "rationale": thought,
            "prompt": prompt,
            "mujoco_version": mujoco_version(),
            "rsb_mj_version": rsb_mj_version(),
            # only perturbed demonstrations name their levels (unperturbed files unchanged)
            **(levels if any(levels.values()) else {}),
        },
    )
    return DemoResult(job.index, success=record.success, failure=failure)


J = TypeVar("J")  # a job of the pool
R = TypeVar("R")  # its result


def run_with_progress(
    write: Callable[[J], R],
    work: list[J],
    died: Callable[[J, str], R],
    desc: str,
    *,
    jobs: int,
    ray: bool,
    progress: bool,
) -> tuple[list[R], float]:
    """Run ``write`` on every job of ``work`` over the pool back ends (``jobs`` workers, or
    Ray), a progress bar counting episodes; returns the results in finishing order and the
    wall-clock seconds the jobs took."""
    results: list[R] = []
    bar = show_progress(len(work), desc=desc, unit="episodes", enabled=progress)

    def finish(job: J, result: R) -> None:
        results.append(result)
        bar.update()

    t0 = time.perf_counter()
    try:
        run_jobs(write, work, finish, died=died, workers=jobs, ray=ray)
    finally:
        bar.close()
    return results, time.perf_counter() - t0


def _died(demo: DemoJob, cause: str) -> DemoResult:
    """The result of a demonstration whose worker died (nothing was written)."""
    return DemoResult(demo.job.index, error=cause)


def rationale_of(episode: Episode, problem: Problem) -> str:
    """The episode's rationale (:mod:`rsb_mj.episodes.rationale`) for a train episode whose
    question source has a rule, else ``""``."""
    if episode.split != "train":
        return ""
    try:
        return rationale(episode, problem)
    except EpisodeError:
        return ""


def missing_indices(
    out_dir: Path, n: int, start: int = 0, *, damaged: list[str] | None = None
) -> list[int]:
    """Row indices in ``[start, start + n)`` without a good file in ``out_dir``.

    Removes leftover temporary files of killed runs, and files that fail
    :func:`~rsb_mj.datasets.demo_file.verify_demo` (truncated, foreign, inconsistent), whose
    reasons are appended to ``damaged``. Call it with the folder locked.
    """
    out_dir = make_folder(out_dir)
    for tmp in out_dir.glob(".episode_*.tmp"):
        tmp.unlink(missing_ok=True)
    todo = []
    for i in range(start, start + n):
        path = out_dir / episode_filename(i)
        if path.is_file():
            try:
                verify_demo(path)
                continue
            except ExpertError as exc:
                path.unlink()
                if damaged is not None:
                    damaged.append(str(exc))
        todo.append(i)
    return todo


def write_demos(
    suite: str,
    split: str,
    n: int,
    out_dir: Path,
    *,
    start: int = 0,
    jobs: int = 1,
    cameras: tuple[str, ...] = ("head", "left_wrist", "right_wrist"),
    width: int = 320,
    height: int = 240,
    progress: bool = True,
    cot: bool = False,
    ray: str | None = None,
    visual_level: int = 0,
    language_level: int = 0,
) -> dict[str, Any]:
    """Write the demonstrations of rows ``start .. start + n - 1`` that are missing, at the
    perturbation levels ``visual_level`` and ``language_level`` (0-4; the instruction stored
    is the one the env gave).

    Every train demonstration stores its rationale (``rationale``); with ``cot`` the
    training prompt (``prompt``) is the instruction followed by ``<think>rationale</think>``
    (ReasoningVLA), else the instruction. The episodes run on ``jobs`` worker processes, or
    with ``ray`` (``""``: a local cluster of ``jobs`` CPUs, else a cluster's address) as Ray
    tasks; the workers write the files, so on a cluster of several machines ``out_dir`` must
    be a shared folder with the same path on every node.

    Returns:
        Counts: ``{"total", "existing", "written", "failed", "damaged", "seconds",
        "failures", "errors"}``; ``failed`` counts written episodes in which the expert did
        not succeed (their files carry ``success = False`` and the reason; ``failures``
        lists them, ``{"index", "failure"}``); ``errors`` lists the episodes that ended in
        an error, ``{"index", "error"}``, whose files were not written (a rerun retries
        them); ``damaged`` lists the files found damaged and rewritten (one reason each).

    Raises:
        ExpertError: rows outside a suite's table, or ``cot`` outside the train split;
        EnvError: unknown cameras or an image size below 1x1; RsbError: an
        ``RSB_MJ_CACHE`` that cannot be written (before ``out_dir`` is made); LockedError:
        another ``rsb demos`` writes to ``out_dir``; WriteError: ``out_dir`` cannot be written;
        InfraError: worker processes kept dying.
    """
    name = suite if is_task_file(suite) else get_suite(suite).name
    task_path(name)
    if cot and split != "train":
        raise ExpertError(
            f"--cot with --split {split}: rationales are made for the train split only "
            "(eval answers never reach training data)"
        )
    cameras = tuple(dict.fromkeys(cameras))
    check_cameras(cameras, width, height)
    check_rows(name, split, n, start)
    cache_root()  # an RSB_MJ_CACHE that cannot be written stops here, not at every episode
    with lock_folder(Path(out_dir), "rsb demos") as lock:
        out_dir = lock.folder
        hold_settings(out_dir, "question", {
            "suite": name, "--split": split, "--cameras": ",".join(cameras), "--width": width,
            "--height": height, "--cot": cot, "--visual-level": visual_level,
            "--language-level": language_level,
        })  # fmt: skip
        damaged: list[str] = []
        todo = missing_indices(out_dir, n, start, damaged=damaged)
        work = [
            demo_job(
                name,
                split,
                i,
                out_dir,
                cameras=cameras,
                width=width,
                height=height,
                cot=cot,
                visual_level=visual_level,
                language_level=language_level,
            )
            for i in todo
        ]
        results, seconds = run_with_progress(
            write_one, work, _died, f"rsb demos {label(name)}", jobs=jobs, ray=ray,
            progress=progress,
        )  # fmt: skip
    errors = [{"index": r.index, "error": r.error} for r in results if r.error is not None]
    failures = [
        {"index": r.index, "failure": r.failure}
        for r in results
        if r.error is None and not r.success
    ]
    return {
        "total": n,
        "existing": n - len(todo),
        "written": len(work) - len(errors),
        "failed": len(failures),
        "damaged": damaged,
        "seconds": seconds,
        "failures": failures,
        "errors": errors,
    }
