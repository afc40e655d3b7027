"""Where evaluation episodes come from: the frozen episode tables of :mod:`rsb_mj.episodes`.

Every evaluated episode is fully determined by (suite, split, index): it is read from the
table that ships with the project, never drawn at evaluation time, so two runs of the same
command evaluate the same questions, mappings, layouts and instructions.
"""

from __future__ import annotations

from functools import cache

from rsb_mj.episode import Episode
from rsb_mj.errors import EvalError


@cache
def _table(suite: str, split: str) -> tuple[Episode, ...]:
    from rsb_mj.episodes.table import load_table

    return tuple(load_table(suite, split))


def load_episode(suite: str, split: str, index: int) -> Episode:
    """Row ``index`` of the frozen (suite, split) table.

    Raises:
        EvalError: when the index is outside the table.
    """
    table = _table(suite, split)
    if not 0 <= index < len(table):
        raise EvalError(
            f"episode index {index} is outside the {suite} {split} table "
            f"(valid: 0..{len(table) - 1})"
        )
    return table[index]


def table_size(suite: str, split: str) -> int:
    """Number of rows of the frozen (suite, split) table."""
    return len(_table(suite, split))


def table_rows(suite: str, split: str) -> tuple[Episode, ...]:
    """Every row of the frozen (suite, split) table (cached per process)."""
    return _table(suite, split)
