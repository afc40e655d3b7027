"""Run independent jobs in worker processes with a progress bar: the pool of ``rsb demos``,
whose workers write their own files (evaluations, ``rsb expert-check`` included, run on the
runner's pool, :mod:`rsb_mj.evaluation.runner`, whose workers return records).

Workers are ``spawn`` processes that end with their parent, even when it is killed with
SIGKILL (see :mod:`rsb_mj.procs`). A worker that dies makes the run stop with an error that
says so; the callers' outputs are resumable, so rerunning the command continues.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from rsb_mj.errors import InfraError
from rsb_mj.procs import spawn_context, terminate_pool, worker_init


def run_jobs(
    fn: Callable[[Any], dict[str, Any]],
    work: Sequence[Any],
    *,
    jobs: int = 1,
    desc: str = "",
    progress: bool = True,
    ray: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield ``fn(job)`` for every job, in completion order.

    With ``jobs > 1`` the jobs run in that many ``spawn`` processes (no state shared with
    the parent; each worker caches its own environment). ``fn`` must be importable
    (a module-level function). With ``ray`` (``""``: a local cluster of ``jobs`` CPUs,
    else a cluster's address) they run as Ray tasks (see
    :mod:`rsb_mj.ray_pool`), and a worker that dies is retried there first.

    Raises:
        InfraError: when a worker process dies (killed, out of memory, a native crash).
    """
    from tqdm import tqdm

    bar = tqdm(total=len(work), desc=desc, unit="ep", disable=not progress, file=sys.stderr)
    try:
        if ray is not None:
            if work:
                yield from _on_ray(fn, work, ray, jobs, bar)
        elif jobs <= 1 or len(work) <= 1:
            for job in work:
                yield fn(job)
                bar.update()
        else:
            yield from _pooled(fn, work, min(jobs, len(work)), bar)
    finally:
        bar.close()


def _on_ray(
    fn: Callable[[Any], dict[str, Any]], work: Sequence[Any], address: str, jobs: int, bar: Any
) -> Iterator[dict[str, Any]]:
    from rsb_mj.ray_pool import RayCluster, failure_message

    with RayCluster(address, jobs) as cluster:
        for _, res, exc in cluster.map(fn, work):
            if exc is not None:
                raise InfraError(
                    f"a Ray task failed ({failure_message(exc)}); finished episodes are kept: "
                    "rerun the same command to continue"
                )
            yield res
            bar.update()


def _pooled(
    fn: Callable[[Any], dict[str, Any]], work: Sequence[Any], jobs: int, bar: Any
) -> Iterator[dict[str, Any]]:
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=spawn_context(),
        initializer=worker_init,
        initargs=(os.getpid(),),
    )
    queue = list(reversed(work))
    pending: set[Future] = set()
    try:
        while queue or pending:
            while queue and len(pending) < jobs:
                pending.add(pool.submit(fn, queue.pop()))
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                res = future.result()
                yield res
                bar.update()
    except BrokenProcessPool:  # from result(), or from submit() to a pool just broken
        raise InfraError(
            "a worker process died (killed or crashed); finished episodes are kept: rerun "
            "the same command to continue"
        ) from None
    finally:
        terminate_pool(pool)
