"""The spawned-processes back end of the pool: ``workers`` ``spawn`` processes, each keeping
its environments between jobs, none outliving the run.

Jobs go to a ``ProcessPoolExecutor`` on the ``spawn`` context
(:func:`rsb_mj.procs.spawn_context`), one job in flight per worker. A worker process that dies
(killed, out of memory, a crash in native code) breaks the executor: each job it had in flight
is handed to ``finish`` as ``died(job, WORKER_DIED)`` and the rest run on a fresh executor,
unless :data:`MAX_BARREN_POOLS` executors in a row broke before finishing any job. Anything
else ``fn`` raises stops the run (the workers are killed).

Workers never outlive their parent: every worker starts with
:func:`rsb_mj.procs.worker_init` (a parent-death signal and a watchdog thread), so it ends
within about a second of the parent, even one killed by SIGKILL.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.pool.base import WORKER_DIED, Backend, J, R
from rsb_mj.procs import spawn_context, worker_init

#: Executors in a row that may break before any job finishes before the run stops.
MAX_BARREN_POOLS = 3


def terminate_pool(pool: Any) -> None:
    """Stop a ``ProcessPoolExecutor`` now: cancel its queued jobs and kill its workers
    (waiting at most 5 s for each to exit)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.kill()
    for proc in processes:
        proc.join(timeout=5)


class SpawnedProcesses(Backend):
    """Runs the jobs on ``workers`` spawned processes, one job in flight per worker.

    Args:
        workers: processes (at most one per job).
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def run(
        self,
        fn: Callable[..., R],
        todo: Sequence[J],
        finish: Callable[[J, R], None],
        died: Callable[[J, str], R],
        args: tuple[Any, ...],
    ) -> None:
        """See :meth:`Backend.run`; a worker that dies breaks the executor: the jobs in flight
        are handed on as ``died`` and the rest continue on a fresh one.

        Raises:
            InfraError: when :data:`MAX_BARREN_POOLS` executors in a row broke before
                finishing a job.
        """
        workers = self.workers
        queue = list(reversed(todo))
        barren = 0  # executors in a row that broke before finishing any job
        while queue:
            if barren >= MAX_BARREN_POOLS:
                raise InfraError(
                    f"worker processes died {barren} times in a row before finishing any "
                    "episode; stopping (the episodes they held are recorded as errors)"
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
                        try:  # an executor whose worker just died refuses new jobs
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
