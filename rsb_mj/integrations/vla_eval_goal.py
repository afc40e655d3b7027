"""The former goal-task plugin's name, kept for vla-eval configs that name it.

``benchmark: "rsb_mj.integrations.vla_eval_goal:GoalBenchmark"`` runs what
``rsb_mj.integrations.vla_eval:RsbBenchmark`` runs with the same ``params`` (a goal suite,
``suite: vla-arena-l0``, or task files, ``files: [...]``): :class:`GoalBenchmark` is that one
benchmark class (:mod:`rsb_mj.integrations.vla_eval`, whose docstring says what an episode,
its metrics and a sealed run are), restricted to goal tasks: ``suite`` must name a goal
suite (``unknown goal suite ...; valid choices: ...`` otherwise) and one of ``suite`` or
``files`` is required. The shipped goal configs name ``RsbBenchmark``.
"""

from __future__ import annotations

from typing import Any

from rsb_mj.errors import RsbError
from rsb_mj.integrations.vla_eval import RsbBenchmark
from rsb_mj.suites import GOAL_MAX_STEPS, GOAL_SUITES, goal_suite


class GoalBenchmark(RsbBenchmark):
    """:class:`~rsb_mj.integrations.vla_eval.RsbBenchmark` on goal tasks only, with the
    former goal plugin's leading params (``suite``, ``files``, ``split``, ``start``,
    ``max_steps`` 600; the others by name) and ``sealed`` false by default.

    Raises:
        RsbError: without a goal suite or files, or for a name that is no goal suite
            (naming the valid ones); and every refusal of ``RsbBenchmark``.
    """

    def __init__(
        self,
        suite: str | None = None,
        files: list[str] | None = None,
        split: str = "eval",
        start: int = 0,
        max_steps: int = GOAL_MAX_STEPS,
        sealed: bool = False,
        **params: Any,
    ) -> None:
        """``params``: the other params of ``RsbBenchmark`` (``width``, ``height``,
        ``quality``, ``send_wrist_image``, ``send_state``, ``convention``, ``assets``,
        ``visual_level``, ``language_level``, ``outcomes``, ``secret_file``)."""
        if suite is None and not files:
            raise RsbError("name a goal suite (suite: vla-arena-l0) or task files (files: [...])")
        if suite is not None and goal_suite(suite) is None:
            raise RsbError(f"unknown goal suite {suite!r}; valid choices: {', '.join(GOAL_SUITES)}")
        super().__init__(
            suite, split, start, files=files, max_steps=max_steps, sealed=sealed, **params
        )


__all__ = ["GoalBenchmark"]
