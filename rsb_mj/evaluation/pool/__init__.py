"""The one pool: where the jobs of a run execute (``rsb eval``, so ``rsb expert-check``,
``rsb demos`` and ``rsb episodes build --jobs``).

:func:`run_jobs` calls ``fn(job, *args)`` for every job and hands each result to ``finish``
in this process, in completion order, so only the caller's process writes what a run keeps
track of. It runs them on one of three back ends (:class:`~rsb_mj.evaluation.pool.base.Backend`):

* :class:`~rsb_mj.evaluation.pool.in_process.InProcess` (``workers == 1``): in this process,
  in order;
* :class:`~rsb_mj.evaluation.pool.processes.SpawnedProcesses` (``workers > 1``): on spawned
  worker processes that keep their environments between jobs and end with the parent; a
  worker that dies hands its jobs on as ``died(job, WORKER_DIED)`` and the run goes on;
* :class:`~rsb_mj.evaluation.pool.ray_cluster.RayTasks` (``ray`` given): as Ray tasks on a
  local cluster (127.0.0.1 only) or a running one; a task that still fails after Ray's
  retries is handed on as died, with its cause.

Anything else ``fn`` raises stops the run (spawned workers are killed).

Batched runs (``rsb eval --batch B``) go through :func:`run_batched`
(:mod:`rsb_mj.evaluation.pool.batched`): in this process, or on spawned workers that each
hold up to B episodes in lockstep and pull jobs as their slots free up; records are handed
to ``finish`` in this process, as here.

:func:`map_jobs` is the same pool for jobs that have no failure record to stand in for
them (the episode tables): results in the order of the jobs, and a worker that dies stops
the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.pool.base import WORKER_DIED, Backend, J, R
from rsb_mj.evaluation.pool.batched import run_batched
from rsb_mj.evaluation.pool.processes import MAX_BARREN_POOLS

__all__ = [
    "MAX_BARREN_POOLS",
    "WORKER_DIED",
    "Backend",
    "backend_for",
    "map_jobs",
    "run_batched",
    "run_jobs",
]


def backend_for(workers: int = 1, ray: str | None = None, jobs: int = 2) -> Backend:
    """The back end of a run of ``jobs`` jobs (see the module docstring).

    Args:
        workers: 1 runs in this process; more, that many spawned processes (or, with
            ``ray == ""``, the CPUs of a local Ray cluster).
        ray: None to run locally; ``""`` for a local Ray cluster started for the run
            (127.0.0.1 only), else a Ray cluster's address.
        jobs: how many jobs the run has (one job runs in this process).
    """
    if ray is not None:
        from rsb_mj.evaluation.pool.ray_cluster import RayTasks

        return RayTasks(ray, workers)
    if workers == 1 or jobs <= 1:
        from rsb_mj.evaluation.pool.in_process import InProcess

        return InProcess()
    from rsb_mj.evaluation.pool.processes import SpawnedProcesses

    return SpawnedProcesses(workers)


def run_jobs(
    fn: Callable[..., R],
    todo: Sequence[J],
    finish: Callable[[J, R], None],
    *,
    died: Callable[[J, str], R],
    workers: int = 1,
    ray: str | None = None,
    args: tuple[Any, ...] = (),
) -> None:
    """Run ``fn(job, *args)`` for every job of ``todo`` and ``finish(job, result)`` each.

    Args:
        fn: a module-level function (spawned workers and Ray import it by name).
        todo: the jobs, started in this order.
        finish: called in this process with each job and its result, in completion order.
        died: the result that stands for a job whose worker died, from the job and the
            cause (``"Type: message"``).
        workers, ray: the back end, as :func:`backend_for` takes them.
        args: further arguments of ``fn`` (picklable).

    Raises:
        InfraError: when worker processes keep dying before finishing a job
            (:data:`MAX_BARREN_POOLS` executors in a row), or Ray cannot be started or
            reached; EvalError: ``--ray`` without Ray installed; whatever ``fn`` or
            ``finish`` raise.
    """
    backend_for(workers, ray, len(todo)).run(fn, todo, finish, died, args)


def _call_indexed(item: tuple[int, J], fn: Callable[..., R], *args: Any) -> R:
    """``fn(job, *args)`` of an ``(index, job)`` pair (module level: workers import it)."""
    return fn(item[1], *args)


def map_jobs(
    fn: Callable[..., R],
    todo: Sequence[J],
    *,
    workers: int = 1,
    ray: str | None = None,
    args: tuple[Any, ...] = (),
) -> list[R]:
    """``[fn(job, *args) for job in todo]`` on the pool's back end, in the order of ``todo``.

    Args:
        fn: a module-level function (spawned workers and Ray import it by name).
        todo: the jobs.
        workers, ray: the back end, as :func:`backend_for` takes them.
        args: further arguments of ``fn`` (picklable).

    Raises:
        InfraError: when a worker dies (there is no record to stand in for its job's
            result, so the run stops); whatever ``fn`` raises.
    """
    results: dict[int, R] = {}

    def finish(item: tuple[int, J], result: R) -> None:
        results[item[0]] = result

    def died(item: tuple[int, J], cause: str) -> R:
        raise InfraError(f"job {item[0] + 1} of {len(todo)}: {cause}")

    run_jobs(
        _call_indexed,
        list(enumerate(todo)),
        finish,
        died=died,
        workers=workers,
        ray=ray,
        args=(fn, *args),
    )
    return [results[i] for i in range(len(todo))]
