"""The spawned-processes back end of the pool: ``workers`` ``spawn`` processes, each keeping
its environments between jobs, none outliving the run.

Jobs go to a ``ProcessPoolExecutor`` on the ``spawn`` context (:func:`spawn_context`; never
``fork``: MuJoCo's GL contexts and Ray's threads do not survive it), one job in flight per
worker. A worker process that dies (killed, out of memory, a crash in native code) breaks
the executor: each job it had in flight is handed to ``finish`` as ``died(job, WORKER_DIED)``
and the rest run on a fresh executor, unless :data:`MAX_BARREN_POOLS` executors in a row broke
before finishing any job. Anything else ``fn`` raises stops the run (the workers are killed).

Workers never outlive their parent: every worker starts with :func:`worker_init`, and when
the parent dies, even by SIGKILL, the worker ends within about a second:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` asks the kernel to kill the worker when
  the thread that created it exits;
- everywhere, a daemon watchdog thread polls ``os.getppid()`` every
  :data:`WATCHDOG_PERIOD_S` seconds and ends the process with ``os._exit`` once the parent
  is gone (the worker was re-parented).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.pool.base import WORKER_DIED, Backend, J, R

#: Executors in a row that may break before any job finishes before the run stops.
MAX_BARREN_POOLS = 3
#: Seconds between two checks of the watchdog thread.
WATCHDOG_PERIOD_S = 0.5
#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1


def spawn_context() -> BaseContext:
    """The ``spawn`` multiprocessing context of every rsb_mj worker process."""
    return multiprocessing.get_context("spawn")


def _set_parent_death_signal() -> bool:
    """Linux only: have the kernel SIGKILL this process when its parent exits."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watchdog(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(WATCHDOG_PERIOD_S)


def worker_init(parent_pid: int) -> None:
    """Initializer of every worker process: end with the parent (see the module docstring).

    Args:
        parent_pid: ``os.getpid()`` of the process that creates the workers.
    """
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watchdog, args=(parent_pid,), daemon=True, name="rsb-watchdog").start()


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
