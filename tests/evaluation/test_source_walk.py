"""The walk of ``run_eval``'s configuration: each source is resolved once, in the planner.

A real run (two episodes of RSB-Math-4 and two of a LIBERO goal file, the expert, the
in-process pool) with a counter on every function that resolves a source, loads or parses
its task, or reads its frozen table. The counters wrap each function wherever a module holds
it, so a call answered by a ``functools.cache`` counts too: a cache hides the work, not the
visit. Resolving, the family decision, the suite lookup, loading the task and reading the
table happen once per source (the job carries the resolved
:class:`~rsb_mj.tables.episode_source.Source`); a row, the environment's task and its digest
once per job at most. Before issue 43's change the same run made 6 calls of
``is_goal_source``, 7 of ``get_suite``, 7 of ``goal_task`` and 6 of ``task_path``.
"""

from __future__ import annotations

import collections
import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any

from rsb_mj.evaluation.runner import EvalConfig, plan, run_eval

GOAL_FILE = "tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl"

#: Functions visited at most once per source of the run.
ONCE_PER_SOURCE = {
    "rsb_mj.tables.episode_source": (
        "resolve",
        "is_goal_source",
        "goal_task",
        "_question_problem",
        "table_size",
    ),
    "rsb_mj.suites": ("get_suite",),
    "rsb_mj.lang.parser": ("parse_file",),
    "rsb_mj.tables.families": ("load_table", "verify_table"),
    "rsb_mj.tables.files": ("read_table", "read_manifest"),
}
#: Functions visited at most once per job (a row, the environment's own reading of its task).
ONCE_PER_JOB = {
    "rsb_mj.tables.episode_source": ("task_path", "_table", "goal_rows", "row_of", "load_episode"),
    "rsb_mj.lang.linter": ("load_task", "load_goal_task", "lint_problem"),
    "rsb_mj.lang.digest": ("task_digest",),
}


def _count_calls(monkeypatch, targets: dict[str, tuple[str, ...]]) -> collections.Counter:
    """Wrap each target function in every ``rsb_mj`` module that holds it; returns the
    counter the wrappers add to (``module.function`` -> calls)."""
    counts: collections.Counter = collections.Counter()

    def counted(key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return fn(*args, **kwargs)

        return wrapper

    for module_name, names in targets.items():
        module = importlib.import_module(module_name)
        for name in names:
            original = getattr(module, name)
            wrapper = counted(f"{module_name.rsplit('.', 1)[-1]}.{name}", original)
            holders = [
                m
                for m in list(sys.modules.values())
                if getattr(m, "__name__", "").startswith("rsb_mj")
                and getattr(m, name, None) is original
            ]
            assert module in holders
            for holder in holders:
                monkeypatch.setattr(holder, name, wrapper)
    return counts


def test_run_eval_resolves_each_source_once(tmp_path, monkeypatch):
    # imported before counting: every module that holds a counted function is wrapped
    importlib.import_module("rsb_mj.env.task_env")
    importlib.import_module("rsb_mj.evaluation.worker")
    config = EvalConfig(
        suites=("RSB-Math-4", GOAL_FILE),
        policies=("expert",),
        episodes=2,
        out=tmp_path / "run",
        progress=False,
    )
    jobs = len(plan(config))
    assert jobs == 4
    targets = {m: ONCE_PER_SOURCE.get(m, ()) + ONCE_PER_JOB.get(m, ())
               for m in {**ONCE_PER_SOURCE, **ONCE_PER_JOB}}  # fmt: skip
    counts = _count_calls(monkeypatch, targets)
    records = run_eval(config)
    assert [(r.suite, r.index, r.success) for r in records] == [
        ("RSB-Math-4", 0, True),
        ("RSB-Math-4", 1, True),
        (GOAL_FILE, 0, True),
        (GOAL_FILE, 1, True),
    ]
    sources = len(config.suites)
    for module_name, names in ONCE_PER_SOURCE.items():
        for name in names:
            key = f"{module_name.rsplit('.', 1)[-1]}.{name}"
            assert counts[key] <= sources, f"{key}: {counts[key]} calls for {sources} sources"
    for module_name, names in ONCE_PER_JOB.items():
        for name in names:
            key = f"{module_name.rsplit('.', 1)[-1]}.{name}"
            assert counts[key] <= jobs, f"{key}: {counts[key]} calls for {jobs} jobs"
    # the family is decided once per source, and the question suite looked up once
    assert counts["episode_source.is_goal_source"] == sources
    assert counts["suites.get_suite"] == 1
    assert counts["episode_source.resolve"] == sources
