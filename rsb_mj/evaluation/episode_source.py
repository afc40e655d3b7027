"""Where evaluation episodes come from: the frozen episode tables of :mod:`rsb_mj.episodes`.

Every evaluated episode is fully determined by (suite, split, index): it is read from the
table that ships with the project, never drawn at evaluation time, so two runs of the same
command evaluate the same questions, mappings, layouts and instructions.

A *source* is a suite name or a task file (``tasks/rsb_math_4_objects.bddl``, any
lint-clean ``.bddl``): a task file's row ``index`` is drawn with ``sample_episode`` from a
seed fixed by (file name, split, index) (:func:`rsb_mj.expert.episodes.row_seed`, the rule
``rsb expert-check`` and ``rsb demos`` use), and its records carry the path as given as
their ``suite``.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

from rsb_mj.episode import Episode
from rsb_mj.errors import EvalError
from rsb_mj.suites import get_suite

#: Rows a task file offers (seeded draws; a bound so a typo cannot ask for 10^11 episodes).
TASK_FILE_ROWS = 100_000


def is_task_file(source: str) -> bool:
    """True when ``source`` names a task file rather than a suite."""
    return source.endswith(".bddl")


def task_path(source: str) -> Path:
    """The task file of a suite or task-file source.

    Raises:
        EvalError: for a task file that does not exist, or an unknown suite.
    """
    if is_task_file(source):
        path = Path(source)
        if not path.is_file():
            raise EvalError(f"task file {source!r} not found")
        return path
    return get_suite(source).path


def step_limit(source: str) -> int:
    """The control-step limit of a source (a suite's, or 400 for a task file)."""
    from rsb_mj.env.registration import TASK_MAX_STEPS

    return TASK_MAX_STEPS if is_task_file(source) else get_suite(source).max_steps


@cache
def _table(suite: str, split: str) -> tuple[Episode, ...]:
    from rsb_mj.episodes.table import load_table

    return tuple(load_table(suite, split))


def load_episode(suite: str, split: str, index: int) -> Episode:
    """Row ``index`` of the frozen (suite, split) table.

    Raises:
        EvalError: when the index is outside the table.
    """
    if is_task_file(suite):
        if not 0 <= index < TASK_FILE_ROWS:
            raise EvalError(
                f"episode index {index} is outside the rows of {suite} "
                f"(valid: 0..{TASK_FILE_ROWS - 1})"
            )
        from rsb_mj.expert.episodes import episode_for

        return dataclasses.replace(episode_for(suite, split, index), suite=suite)
    table = _table(suite, split)
    if not 0 <= index < len(table):
        raise EvalError(
            f"episode index {index} is outside the {suite} {split} table "
            f"(valid: 0..{len(table) - 1})"
        )
    return table[index]


def table_size(suite: str, split: str) -> int:
    """Number of rows of the frozen (suite, split) table (of a task file: its row bound)."""
    if is_task_file(suite):
        task_path(suite)
        return TASK_FILE_ROWS
    return len(_table(suite, split))


def table_rows(suite: str, split: str) -> tuple[Episode, ...]:
    """Every row of the frozen (suite, split) table (cached per process)."""
    return _table(suite, split)
