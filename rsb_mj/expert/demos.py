"""Write expert demonstrations: ``rsb demos SUITE --split train -n N -o DIR``.

One HDF5 file per episode (format in :mod:`rsb_mj.expert.dataset`), named by the episode's
row index, so the set is resumable: a rerun re-verifies every finished file, keeps the good
ones and writes the missing and damaged ones; a killed run leaves at most hidden temporary
files, which are removed. One writer per folder: the folder is locked (:mod:`rsb_mj.lock`)
while demos are written, and a second ``rsb demos`` on it is refused. Rows of a suite must
lie in its frozen table. Work is spread over processes (each builds its environment once),
with a progress bar and one summary line at the end.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rsb_mj.errors import ExpertError
from rsb_mj.expert.dataset import episode_filename, file_sha256, verify_demo, write_demo
from rsb_mj.expert.episodes import (
    episode_for,
    label,
    load_problem,
    make_env,
    source_name,
    task_path,
)
from rsb_mj.expert.parallel import run_jobs
from rsb_mj.expert.rollout import run_expert
from rsb_mj.lock import lock_folder, make_folder
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
    key = (job.suite, job.cameras, job.width, job.height)
    if key not in _ENVS:
        for env in _ENVS.values():
            env.close()
        _ENVS.clear()
        _ENVS[key] = make_env(job.suite, cameras=job.cameras, width=job.width, height=job.height)
    return _ENVS[key]


def write_one(job: DemoJob) -> dict[str, Any]:
    """Run the expert on one episode and write its file; returns the run summary."""
    episode = episode_for(job.suite, job.split, job.index)
    problem = load_problem(job.suite)
    run = run_expert(_env(job), episode, problem, record=True)
    assert run.states is not None and run.actions is not None
    thought = rationale_of(episode, problem)
    prompt = f"{run.instruction} <think>{thought}</think>" if job.cot else run.instruction
    write_demo(
        Path(job.out_dir) / episode_filename(job.index),
        episode=episode,
        instruction=run.instruction,
        states=run.states,
        actions=run.actions,
        images=run.images,
        attrs={
            "success": run.success,
            "grasped": run.grasped,
            "failure": run.failure,
            "task_sha256": file_sha256(task_path(job.suite)),
            "rationale": thought,
            "prompt": prompt,
            "mujoco_version": mujoco_version(),
            "rsb_mj_version": rsb_mj_version(),
        },
    )
    return run.summary()


def rationale_of(episode: Any, problem: Any) -> str:
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


def check_rows(suite: str, split: str, n: int, start: int) -> None:
    """Refuse rows outside a suite's frozen table (task files draw any row).

    Raises:
        ExpertError: naming the table size and the valid range.
    """
    from rsb_mj.episodes.table import load_table
    from rsb_mj.suites import SUITES

    if suite not in SUITES:
        return
    rows = len(load_table(suite, split))
    if start + n > rows:
        raise ExpertError(
            f"--start {start} -n {n}: the {suite} {split} table has {rows} rows "
            f"(valid: --start + -n <= {rows})"
        )


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
) -> dict[str, Any]:
    """Write the demonstrations of rows ``start .. start + n - 1`` that are missing.

    Every train demonstration stores its rationale (``rationale``); with ``cot`` the
    training prompt (``prompt``) is the instruction followed by ``<think>rationale</think>``
    (ReasoningVLA), else the instruction.

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
    name = source_name(suite)
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
                write_one, work, jobs=jobs, desc=f"demos {label(name)}", progress=progress
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
