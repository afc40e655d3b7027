"""The parsed task file of a suite: what its tables are drawn from."""

from __future__ import annotations

from rsb_mj.lang.ast import Problem
from rsb_mj.suites import Suite


def load_suite_problem(suite: Suite) -> Problem:
    """Parse and lint the suite's task file (``rsb_mj.lang.load_task``)."""
    from rsb_mj.lang import load_task

    return load_task(suite.path)


__all__ = ["load_suite_problem"]
