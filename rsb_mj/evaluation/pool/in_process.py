"""The in-process back end of the pool: every job in this process, in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rsb_mj.evaluation.pool.base import Backend, J, R


class InProcess(Backend):
    """Runs the jobs one after the other in this process (``workers == 1``).

    Nothing can die apart from this process, so ``died`` is never called. The environments
    that :mod:`rsb_mj.evaluation.worker` keeps between jobs are closed when the run ends
    (normally or not), as a worker process's would be when it exits.
    """

    def run(
        self,
        fn: Callable[..., R],
        todo: Sequence[J],
        finish: Callable[[J, R], None],
        died: Callable[[J, str], R],
        args: tuple[Any, ...],
    ) -> None:
        from rsb_mj.evaluation.worker import close_all

        try:
            for job in todo:
                finish(job, fn(job, *args))
        finally:
            close_all()
