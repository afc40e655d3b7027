"""Episodes, task files and environments for expert runs (demos and success checks).

A *source* is a suite name (``RSB-Math-4``) or a task file path (e.g. the Beyond Blocks
``tasks/rsb_math_4_objects.bddl``). Episodes of a suite come from its frozen tables
(:mod:`rsb_mj.episodes`; a missing or damaged table is an error); rows of a task file, and rows
past the end of a suite's table, are drawn with ``sample_episode`` from a seed fixed by
(source, split, index), so a row always means the same episode.
"""

from __future__ import annotations

import zlib
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.episode import Episode
from rsb_mj.errors import RsbError
from rsb_mj.lang.ast import Problem
from rsb_mj.suites import A2A_SUITES, SUITES, get_suite


def is_task_file(source: str) -> bool:
    """True when ``source`` names a task file rather than a suite."""
    return source.endswith(".bddl")


def source_name(source: str) -> str:
    """Canonical name: the suite's name, or the task file's resolved path."""
    if is_task_file(source):
        path = Path(source)
        if not path.is_file():
            raise RsbError(f"task file {source!r} not found")
        return str(path.resolve())
    return get_suite(source).name


def task_path(source: str) -> Path:
    """The task file of a source."""
    return Path(source) if is_task_file(source) else get_suite(source).path


def label(source: str) -> str:
    """Short display name: the suite name or the task file's name."""
    return Path(source).name if is_task_file(source) else source


@cache
def load_problem(source: str) -> Problem:
    """The parsed and linted task file of ``source``."""
    from rsb_mj.lang import load_task

    return load_task(task_path(source))


def row_seed(source: str, split: str, index: int) -> int:
    """The seed of row ``index`` of (source, split) when no frozen table provides it."""
    key = [zlib.crc32(label(source).encode()), zlib.crc32(split.encode()), int(index)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


@cache
def _table(suite: str, split: str) -> tuple[Episode, ...]:
    if suite not in SUITES and suite not in A2A_SUITES:
        return ()
    from rsb_mj.episodes import load_table

    return tuple(load_table(suite, split))  # a missing or corrupt table is an error


def episode_for(source: str, split: str, index: int) -> Episode:
    """Row ``index`` of (source, split): a suite's frozen table row, a task file's seeded draw.

    Raises:
        EpisodeError: when a suite's table is missing or damaged (never a silent fresh draw).
    """
    table = _table(source, split)
    if 0 <= index < len(table):
        return table[index]
    from rsb_mj.episodes import sample_episode

    suite = source if source in SUITES or source in A2A_SUITES else ""
    return sample_episode(
        load_problem(source),
        suite=suite,
        split=split,
        index=index,
        seed=row_seed(source, split, index),
    )


def make_env(
    source: str,
    *,
    cameras: tuple[str, ...] = (),
    width: int = 320,
    height: int = 240,
) -> Any:
    """The registered environment of ``source`` (with its step limit)."""
    import gymnasium as gym

    from rsb_mj.env.registration import TASK_ENV_ID, register_envs

    register_envs()
    if is_task_file(source):
        env_id, extra = TASK_ENV_ID, {"task": source}
    else:
        env_id, extra = get_suite(source).env_id, {}
    return gym.make(
        env_id,
        cameras=tuple(cameras),
        width=width,
        height=height,
        **extra,
    )
