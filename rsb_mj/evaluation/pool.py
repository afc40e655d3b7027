"""Where the episodes of a run execute: this process, spawned worker processes, or Ray tasks.

The one process pool of ``rsb eval`` (so of ``rsb expert-check``) and ``rsb demos``.
:func:`run_jobs` calls ``fn(job, *args)`` for every job, in this process (``workers == 1``),
on ``workers`` spawned processes (each keeping its environments between episodes and ending
with the parent, see :mod:`rsb_mj.procs`), or as Ray tasks (``ray``, see
:mod:`rsb_mj.ray_pool`), and hands each result to ``finish`` in this process, in completion
order: only the caller's process writes what a run keeps track of.

A worker process that dies (killed, out of memory, a crash in native code) does not stop the
run: each job it had in flight is handed to ``finish`` as ``died(job, WORKER_DIED)`` and the
rest run on a fresh pool, unless :data:`MAX_BARREN_POOLS` pools in a row broke before
finishing any job. A Ray task that still fails after Ray's retries is handed on the same way,
with its cause. Anything else ``fn`` raises stops the run (the workers are killed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from rsb_mj.errors import InfraError
from rsb_mj.procs import spawn_context, terminate_pool, worker_init

#: The cause handed to ``died`` for a job whose worker process died.
WORKER_DIED = "InfraError: the worker process running this episode died (killed or crashed)"
#: Pools in a row that may break before any job finishes before the run stops.
MAX_BARREN_POOLS = 3

J = TypeVar("J")
R = TypeVar("R")


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
        workers: 1 runs in this process; more, that many spawned processes (or, with
            ``ray == ""``, the CPUs of a local Ray cluster).
        ray: None to run locally; ``""`` for a local Ray cluster started for the run
            (127.0.0.1 only), else a Ray cluster's address.
        args: further arguments of ``fn`` (picklable).

    Raises:
        InfraError: when :data:`MAX_BARREN_POOLS` pools in a row broke before finishing a
            job; whatever ``fn`` or ``finish`` raise.
    """
    if ray is not None:
        if todo:
            _on_ray(fn, todo, finish, died, ray, workers, args)
    elif workers == 1 or len(todo) <= 1:
        from rsb_mj.evaluation.worker import close_all

        try:
            for job in todo:
                finish(job, fn(job, *args))
        finally:
            close_all()
    else:
        _pooled(fn, todo, finish, died, workers, args)


def _on_ray(
    fn: Callable[..., R],
    todo: Sequence[J],
    finish: Callable[[J, R], None],
    died: Callable[[J, str], R],
    address: str,
    workers: int,
    args: tuple[Any, ...],
) -> None:
    """Run ``todo`` as Ray tasks; a task whose worker died more often than Ray retries it
    (or that failed otherwise) is handed on as ``died(job, cause)``."""
    from rsb_mj.ray_pool import RayCluster, failure_message, is_worker_death

    with RayCluster(address, workers) as cluster:
        for job, result, exc in cluster.map(fn, todo, *args):
            if exc is not None:
                cause = WORKER_DIED if is_worker_death(exc) else failure_message(exc)
                result = died(job, cause)
            finish(job, result)


def _pooled(
    fn: Callable[..., R],
    todo: Sequence[J],
    finish: Callable[[J, R], None],
    died: Callable[[J, str], R],
    workers: int,
    args: tuple[Any, ...],
) -> None:
    """Run ``todo`` on ``workers`` spawned processes, one job in flight per worker.

    A worker that dies breaks the pool: the jobs in flight are handed on as ``died`` and
    the rest continue on a fresh pool.
    """
    queue = list(reversed(todo))
    barren = 0  # pools in a row that broke before finishing any job
    while queue:
        if barren >= MAX_BARREN_POOLS:
            raise InfraError(
                f"worker processes died {barren} times in a row before finishing any episode; "
                "stopping (the episodes they held are recorded as errors)"
            )
        pool = ProcessPoolExecutor(
            max_workers=min(workers, len(queue)),
            mp_context=spawn_context(),
            initializer=worker_init,
            initargs=(os.getpid(),),
        )
        pending: dict[Future, J] = {}
        barren += 1
        finished = False
        try:
            while queue or pending:
                broken = False
                while queue and len(pending) < workers:
                    try:  # a pool whose worker just died refuses new jobs
                        future = pool.submit(fn, queue[-1], *args)
                    except BrokenProcessPool:
                        broken = True
                        break
                    pending[future] = queue.pop()
                if not broken:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        job = pending.pop(future)
                        try:
                            result = future.result()
                            finished = True
                        except BrokenProcessPool:
                            broken = True
                            result = died(job, WORKER_DIED)
                        finish(job, result)
                    if finished:
                        barren = 0
                if broken:
                    for future, job in pending.items():
                        try:
                            result = future.result(timeout=30)
                        except (BrokenProcessPool, TimeoutError):
                            result = died(job, WORKER_DIED)
                        finish(job, result)
                    pending.clear()
                    break
        except BaseException:
            terminate_pool(pool)
            raise
        pool.shutdown(wait=True, cancel_futures=True)
