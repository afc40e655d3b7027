"""Episodes, task files and environments for expert runs (demos and success checks).

Episodes come from the frozen tables of :mod:`rsb_mj.episodes` when the split has one with
the requested row; otherwise they are drawn with ``sample_episode`` from a seed fixed by
(suite, split, index), so a row always means the same episode.
"""

from __future__ import annotations

import zlib
from functools import cache
from typing import Any

import numpy as np

from rsb_mj.episode import Episode
from rsb_mj.suites import get_suite


@cache
def load_problem(suite: str) -> Any:
    """The parsed and linted task file of ``suite``."""
    from rsb_mj.lang import load_task

    return load_task(get_suite(suite).path)


def row_seed(suite: str, split: str, index: int) -> int:
    """The seed of row ``index`` of (suite, split) when no frozen table provides it."""
    key = [zlib.crc32(get_suite(suite).name.encode()), zlib.crc32(split.encode()), int(index)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


@cache
def _table(suite: str, split: str) -> tuple[Episode, ...]:
    try:
        from rsb_mj.episodes import load_table
    except ImportError:
        return ()
    try:
        return tuple(load_table(suite, split))
    except Exception:
        return ()


def episode_for(suite: str, split: str, index: int) -> Episode:
    """Row ``index`` of (suite, split): the frozen table's row, else a seeded draw."""
    name = get_suite(suite).name
    table = _table(name, split)
    if 0 <= index < len(table):
        return table[index]
    from rsb_mj.episodes import sample_episode

    return sample_episode(
        load_problem(name), suite=name, split=split, index=index, seed=row_seed(name, split, index)
    )


def make_env(
    suite: str,
    *,
    cameras: tuple[str, ...] = (),
    width: int = 320,
    height: int = 240,
) -> Any:
    """The registered environment of ``suite`` (with its step limit)."""
    import gymnasium as gym

    from rsb_mj.env.registration import register_envs

    register_envs()
    # The passive checker rejects the empty ``images`` space of a camera-less env.
    return gym.make(
        get_suite(suite).env_id,
        cameras=tuple(cameras),
        width=width,
        height=height,
        disable_env_checker=True,
    )
