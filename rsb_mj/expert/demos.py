"""Write expert demonstrations: ``rsb demos SUITE --split train -n N -o DIR``.

One HDF5 file per episode (format in :mod:`rsb_mj.expert.dataset`), named by the episode's
row index, so the set is resumable: a rerun re-verifies every finished file, keeps the good
ones and writes the missing and damaged ones; a killed run leaves at most hidden temporary
files, which are removed. One writer per folder: the folder is locked (:mod:`rsb_mj.lock`)
while demos are written, and a second ``rsb demos`` on it is refused. Rows of a suite must
lie in its frozen table. Work is spread over processes (each builds its environment once),
with a progress bar and one summary line at the end.

Each episode is the one ``rsb eval --policy expert`` and ``rsb expert-check`` run on the same
row: the same lookup (:mod:`rsb_mj.evaluation.episode_source`), the same rollout loop
(:func:`rsb_mj.evaluation.rollout.run_episode`, recording through its ``on_step`` hook), the
same expert seed; only the writer is the demos' own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.episode import Episode
from rsb_mj.errors import ExpertError
from rsb_mj.evaluation.episode_source import (
    check_rows,
    is_task_file,
    label,
    load_episode,
    load_problem,
    step_limit,
    task_path,
)
from rsb_mj.expert.dataset import episode_filename, file_sha256, verify_demo, write_demo
from rsb_mj.expert.parallel import run_jobs
from rsb_mj.lang.ast import Problem
from rsb_mj.lock import lock_folder, make_folder
from rsb_mj.suites import get_suite
from rsb_mj.version import mujoco_version, rsb_mj_version


@dataclass(frozen=True)
class DemoJob:
    """What one worker needs to write one episode."""

    suite: str  # suite name or task file path
    split: str
    index: int
    out_dir: str
    cameras: tuple[str, ...]
    width: int
    height: int
    cot: bool = False


_ENVS: dict[tuple[Any, ...], Any] = {}


def _env(job: DemoJob) -> Any:
    from rsb_mj.env import RsbEnv

    key = (job.suite, job.split, job.cameras, job.width, job.height)
    if key not in _ENVS:
        for env in _ENVS.values():
            env.close()
        _ENVS.clear()
        suite = "" if is_task_file(job.suite) else get_suite(job.suite).name
        _ENVS[key] = RsbEnv(
            task_path(job.suite),
            suite=suite,
            split=job.split,
            cameras=job.cameras,
            width=job.width,
            height=job.height,
        )
    return _ENVS[key]


@dataclass
class Recorder:
    """Collects what a demonstration stores, from the rollout's ``on_step`` hook: the
    observation before each action (state and camera frames) and the action."""

    states: list[np.ndarray] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    images: dict[str, list[np.ndarray]] = field(default_factory=dict)

    def __call__(self, obs: dict[str, Any], action: np.ndarray) -> None:
        self.states.append(np.asarray(obs["state"], dtype=np.float64).copy())
        self.actions.append(np.asarray(action, dtype=np.float64).copy())
        for name, frame in obs.get("images", {}).items():
            self.images.setdefault(name, []).append(frame)


def write_one(job: DemoJob) -> dict[str, Any]:
    """Run the expert on one episode, as ``rsb eval --policy expert`` does, and write its file.

    Returns:
        ``{"index", "success", "failure"}`` (``failure``: the record's reason, ``""`` on
        success).

    Raises:
        ExpertError: when the episode ended in an error (nothing is written).
    """
    from rsb_mj.evaluation.rollout import run_episode
    from rsb_mj.policies.scripted import ExpertPolicy

    episode = load_episode(job.suite, job.split, job.index)
    problem = load_problem(job.suite)
    recorder = Recorder()
    record = run_episode(
        _env(job),
        ExpertPolicy(),
        episode,
        problem,
        max_steps=step_limit(job.suite),
        on_step=recorder,
        episode_timeout_s=None,
    )
    if record.is_error:
        raise ExpertError(f"{label(job.suite)} row {job.index}: {record.error}")
    failure = record.failure_reason or ""
    thought = rationale_of(episode, problem)
    # the instruction the env gave: demos run unperturbed, so the episode's own
    prompt = f"{episode.instruction} <think>{thought}</think>" if job.cot else episode.instruction
    write_demo(
        Path(job.out_dir) / episode_filename(job.index),
        episode=episode,
        instruction=episode.instruction,
        states=np.stack(recorder.states),
        actions=np.stack(recorder.actions),
        images=recorder.images,
        attrs={
            "success": record.success,
            "grasped": record.grasped,
            "failure": failure,
            "task_sha256": file_sha256(task_path(job.suite)),
            "rationale": thought,
            "prompt": prompt,
            "mujoco_version": mujoco_version(),
            "rsb_mj_version": rsb_mj_version(),
        },
    )
    return {"index": job.index, "success": record.success, "failure": failure}


def rationale_of(episode: Episode, problem: Problem) -> str:
    """The episode's rationale (:mod:`rsb_mj.episodes.rationale`) for a train episode whose
    question source has a rule, else ``""``."""
    from rsb_mj.episodes.rationale import rationale
    from rsb_mj.errors import EpisodeError

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
    :func:`~rsb_mj.expert.dataset.verify_demo` (truncated, foreign, inconsistent), whose
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
) -> dict[str, Any]:
    """Write the demonstrations of rows ``start .. start + n - 1`` that are missing.

    Every train demonstration stores its rationale (``rationale``); with ``cot`` the
    training prompt (``prompt``) is the instruction followed by ``<think>rationale</think>``
    (ReasoningVLA), else the instruction. With ``ray`` (``""``: a local cluster of ``jobs``
    CPUs, else a cluster's address) the episodes run as Ray tasks; the workers write the
    files, so on a cluster of several machines ``out_dir`` must be a shared folder with the
    same path on every node.

    Returns:
        Counts: ``{"total", "existing", "written", "failed", "damaged", "seconds",
        "failures"}``; ``failed`` counts written episodes in which the expert did not
        succeed (their files carry ``success = False`` and the reason); ``damaged`` lists
        the files found damaged and rewritten (one reason each).

    Raises:
        ExpertError: rows outside a suite's table, or ``cot`` outside the train split;
            LockedError: another ``rsb demos``
        writes to ``out_dir``; WriteError: ``out_dir`` cannot be written.
    """
    name = suite if is_task_file(suite) else get_suite(suite).name
    task_path(name)
    if cot and split != "train":
        raise ExpertError(
            f"--cot with --split {split}: rationales are made for the train split only "
            "(eval answers never reach training data)"
        )
    check_rows(name, split, n, start)
    with lock_folder(Path(out_dir), "rsb demos") as lock:
        out_dir = lock.folder
        damaged: list[str] = []
        todo = missing_indices(out_dir, n, start, damaged=damaged)
        work = [
            DemoJob(name, split, i, str(out_dir), tuple(cameras), width, height, cot) for i in todo
        ]
        t0 = time.perf_counter()
        failures = [
            res
            for res in run_jobs(
                write_one,
                work,
                jobs=jobs,
                desc=f"demos {label(name)}",
                progress=progress,
                ray=ray,
            )
            if not res["success"]
        ]
    return {
        "total": n,
        "existing": n - len(todo),
        "written": len(work),
        "failed": len(failures),
        "damaged": damaged,
        "seconds": time.perf_counter() - t0,
        "failures": failures,
    }
