"""Batched runs (``rsb eval --batch B``): worker processes that each hold up to B episodes and
take jobs from this process as their slots free up.

:func:`run_batched` runs in this process with ``workers == 1`` (:func:`~rsb_mj.evaluation.
worker.run_batch` over the job list); else it spawns ``workers`` processes (the ``spawn``
context, each ending with the parent: :mod:`rsb_mj.procs`) and serves them jobs over one
pipe each. The messages (pickled tuples between this process and its own workers):

* worker -> parent: ``("take", n)`` asks for up to ``n`` jobs (its free slots);
  ``("record", i, record)`` the record of job ``i``; ``("failed", text)`` its loop raised
  (the run stops);
* parent -> worker: ``("jobs", [(i, job), ...])``, at most ``n`` and at most an even share
  of the jobs left per live worker; an empty list: none left (the worker finishes its
  episodes and exits).

As with the one-job pool (:mod:`rsb_mj.evaluation.pool`), only this process hands records
to ``finish``, in completion order; a worker that dies turns the jobs it held into
``died(job, WORKER_DIED)`` and a fresh worker takes its place while jobs are left, unless
:data:`~rsb_mj.evaluation.pool.MAX_BARREN_POOLS` workers in a row died before finishing
any episode. A job is answered before its record is handed on, so a slow ``finish`` (an
``fsync``) never delays a worker's refill.
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.pool.base import WORKER_DIED
from rsb_mj.evaluation.pool.processes import MAX_BARREN_POOLS
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.procs import spawn_context, worker_init

#: Seconds a worker that was told no jobs are left may take to exit before it is killed.
EXIT_TIMEOUT_S = 30.0


def run_batched(
    todo: Sequence[Job],
    finish: Callable[[Job, EpisodeRecord], None],
    *,
    died: Callable[[Job, str], EpisodeRecord],
    workers: int,
    batch: int,
    env_factory: Any = None,
    mark: Callable[[EpisodeRecord], EpisodeRecord] | None = None,
) -> None:
    """Run ``todo``, up to ``batch`` episodes at once per worker, and ``finish`` each record.

    Args:
        todo: the jobs, handed out in this order.
        finish: called in this process with each job and its record, in completion order.
        died: the record of a job whose worker died, from the job and the cause.
        workers: 1 runs in this process; more, that many spawned processes.
        batch: episodes per worker in lockstep.
        env_factory: builds environments (picklable for workers > 1), None for the default.
        mark: applied to each record in the process that ran its episode (a module-level
            function), e.g. to note its renderer; None for none.

    Raises:
        InfraError: when workers keep dying before finishing an episode, or a worker's own
            loop failed; whatever ``finish`` raises.
    """
    if workers == 1 or len(todo) <= 1:
        # the pool loads without the harness (a spawned worker imports it before its first
        # job; tests/evaluation/test_pool.py): the worker is imported where a job runs
        from rsb_mj.evaluation.worker import close_all, run_batch

        queue = deque(todo)
        try:
            run_batch(
                lambda n: [queue.popleft() for _ in range(min(n, len(queue)))],
                lambda job, record: finish(job, mark(record) if mark else record),
                batch=batch,
                env_factory=env_factory,
            )
        finally:
            close_all()
        return
    _Parent(list(todo), finish, died, workers, batch, (env_factory, mark)).run()


@dataclass(eq=False)
class _Worker:
    proc: Any
    conn: Connection
    held: dict[int, Job] = field(default_factory=dict)
    finished: int = 0


class _Parent:
    """Serves jobs to worker processes and gathers their records (see the module docstring)."""

    def __init__(
        self,
        todo: list[Job],
        finish: Callable[[Job, EpisodeRecord], None],
        died: Callable[[Job, str], EpisodeRecord],
        workers: int,
        batch: int,
        settings: tuple[Any, Any],
    ) -> None:
        self.todo, self.finish, self.died = todo, finish, died
        self.queue = deque(range(len(todo)))
        self.size, self.batch, self.settings = min(workers, len(todo)), batch, settings
        self.workers: list[_Worker] = []
        self.barren = 0  # workers in a row that died before finishing any episode

    def _start(self) -> None:
        ctx = spawn_context()
        ours, theirs = ctx.Pipe(duplex=True)
        proc = ctx.Process(
            target=serve,
            args=(theirs, os.getpid(), self.batch, *self.settings),
            name="rsb-batch-worker",
            daemon=True,
        )
        proc.start()
        theirs.close()
        self.workers.append(_Worker(proc, ours))

    def run(self) -> None:
        try:
            for _ in range(self.size):
                self._start()
            while self.workers:
                by_handle: dict[Any, _Worker] = {}
                for w in self.workers:
                    by_handle[w.conn] = w
                    by_handle[w.proc.sentinel] = w
                for handle in wait(list(by_handle)):
                    w = by_handle[handle]
                    if w in self.workers:
                        self._serve_one(w, handle is w.conn)
        except BaseException:
            for w in self.workers:
                w.proc.kill()
            raise
        finally:
            for w in self.workers:
                w.proc.join(timeout=EXIT_TIMEOUT_S)
                w.conn.close()

    def _serve_one(self, w: _Worker, readable: bool) -> None:
        """Answer what ``w`` sent; when its process ended (``readable`` False: its sentinel),
        read what it left in the pipe first."""
        while w in self.workers and w.conn.poll():
            try:
                message = w.conn.recv()
            except (EOFError, OSError):
                break
            self._handle(w, message)
        else:
            if readable or w not in self.workers:
                return
        if w in self.workers:
            self._lost(w)

    def _handle(self, w: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "take":
            live = max(1, len(self.workers))
            share = max(1, math.ceil(len(self.queue) / live))
            jobs = [self.queue.popleft() for _ in range(min(message[1], share, len(self.queue)))]
            for i in jobs:
                w.held[i] = self.todo[i]
            w.conn.send(("jobs", [(i, self.todo[i]) for i in jobs]))
        elif kind == "record":
            _, i, record = message
            job = w.held.pop(i)
            w.finished += 1
            self.barren = 0
            self.finish(job, record)
        elif kind == "failed":
            raise InfraError(f"a worker process failed: {message[1]}")
        elif kind == "bye":
            self._forget(w)

    def _forget(self, w: _Worker) -> None:
        self.workers.remove(w)
        w.conn.close()
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(timeout=EXIT_TIMEOUT_S)

    def _lost(self, w: _Worker) -> None:
        """A worker died (or closed its pipe): its jobs are errors; another takes its place."""
        self._forget(w)
        for job in w.held.values():
            self.finish(job, self.died(job, WORKER_DIED))
        if not w.finished:
            self.barren += 1
        if self.queue:
            if self.barren >= MAX_BARREN_POOLS:
                raise InfraError(
                    f"worker processes died {self.barren} times in a row before finishing any "
                    "episode; stopping (the episodes they held are recorded as errors)"
                )
            self._start()


def serve(
    conn: Connection,
    parent_pid: int,
    batch: int,
    env_factory: Any,
    mark: Callable[[EpisodeRecord], EpisodeRecord] | None,
) -> None:
    """A worker process: run the jobs the parent hands out (see the module docstring)."""
    worker_init(parent_pid)
    from rsb_mj.evaluation.worker import close_all, run_batch

    index: dict[int, int] = {}  # id(job) -> its index in the parent's list

    def take(n: int) -> list[Job]:
        conn.send(("take", n))
        _, pairs = conn.recv()
        for i, job in pairs:
            index[id(job)] = i
        return [job for _, job in pairs]

    def emit(job: Job, record: EpisodeRecord) -> None:
        conn.send(("record", index.pop(id(job)), mark(record) if mark else record))

    try:
        run_batch(take, emit, batch=batch, env_factory=env_factory)
    except KeyboardInterrupt:
        return
    except BaseException as exc:
        import traceback

        conn.send(("failed", "".join(traceback.format_exception(exc))[-4000:]))
        return
    finally:
        close_all()
    conn.send(("bye",))
