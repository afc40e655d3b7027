"""Run independent jobs in worker processes with a progress bar."""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any


def run_jobs(
    fn: Callable[[Any], dict[str, Any]],
    work: Sequence[Any],
    *,
    jobs: int = 1,
    desc: str = "",
    progress: bool = True,
) -> Iterator[dict[str, Any]]:
    """Yield ``fn(job)`` for every job, in completion order.

    With ``jobs > 1`` the jobs run in that many ``spawn`` processes (no state shared with
    the parent; each worker caches its own environment). ``fn`` must be importable
    (a module-level function).
    """
    from tqdm import tqdm

    bar = tqdm(total=len(work), desc=desc, unit="ep", disable=not progress, file=sys.stderr)
    try:
        if jobs <= 1 or len(work) <= 1:
            for job in work:
                yield fn(job)
                bar.update()
        else:
            ctx = mp.get_context("spawn")
            with ctx.Pool(min(jobs, len(work))) as pool:
                for res in pool.imap_unordered(fn, work):
                    yield res
                    bar.update()
    finally:
        bar.close()
