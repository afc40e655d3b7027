"""What every back end of the pool shares: the :class:`Backend` interface and the cause of a
job whose worker died."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

#: The cause handed to ``died`` for a job whose worker process died.
WORKER_DIED = "InfraError: the worker process running this episode died (killed or crashed)"

J = TypeVar("J")
R = TypeVar("R")


class Backend(ABC):
    """Where the jobs of one run execute (this process, spawned processes, Ray tasks)."""

    @abstractmethod
    def run(
        self,
        fn: Callable[..., R],
        todo: Sequence[J],
        finish: Callable[[J, R], None],
        died: Callable[[J, str], R],
        args: tuple[Any, ...],
    ) -> None:
        """Run ``fn(job, *args)`` for every job of ``todo`` and call ``finish(job, result)``
        in this process for each, in completion order; a job whose worker died (where the
        back end can tell) is finished with ``died(job, cause)``.

        Raises:
            Whatever ``fn`` or ``finish`` raise (the run stops); back-end errors as
            :class:`~rsb_mj.errors.InfraError` or :class:`~rsb_mj.errors.EvalError`.
        """
