"""Settled layouts: a goal row drawn and re-drawn through the environment.

Which rows a goal suite's table holds, how they are written and checked against the
manifest is :mod:`rsb_mj.tables.layouts` (as every table: :mod:`rsb_mj.tables.files`); what
needs the scene and the goal checker is here, handed to it as arguments by ``rsb episodes
build|check`` (:func:`rsb_mj.tables.freeze.freeze_tables`,
:func:`rsb_mj.tables.layouts.check_layout_tables`):

* :func:`freeze_file` draws a task file's rows: it resets a
  :class:`~rsb_mj.env.rsb_env.RsbEnv` of the file seed after seed, and keeps a seed's draw
  only if it settles into a valid start with the goal false and the head camera shows every
  object the task names (rule 1 of :mod:`rsb_mj.env.visibility`), else the seed is
  skipped as one without a valid layout (the reason ``rule 1: ...``). The rows depend only
  on the task file, the code and mujoco: not on the worker count.
* :func:`redraw_file` (``rsb episodes check``) re-draws every row's layout from its
  ``(seed, draw)`` (no physics: the seed's generator, draw after draw), compares it bit for
  bit, and settles every eval row's layout again and checks it is a valid start. A changed
  row is named ``file:line``.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.env.visibility import head_fails
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import RsbError, SceneError
from rsb_mj.scene.region_layout import ATTEMPTS
from rsb_mj.tables.layouts import FIRST_SEED, GOAL_ROWS, SKIP_LIMIT, FileRows, task_key


def _seeds_text(seeds: list[int]) -> str:
    return ", ".join(str(s) for s in seeds[:8]) + (" ..." if len(seeds) > 8 else "")


def freeze_file(
    path: str | Path, suite: str, splits: tuple[str, ...], rows: dict[str, int] | None = None
) -> FileRows:
    """The rows of the shipped task file ``path`` in ``suite``'s tables (module docstring of
    :mod:`rsb_mj.tables.layouts`: seeds from :data:`~rsb_mj.tables.layouts.FIRST_SEED`, a
    seed without a valid layout skipped and recorded, a split given up after
    :data:`~rsb_mj.tables.layouts.SKIP_LIMIT` skipped seeds; when a split got no row, the
    later splits are not tried); a :data:`~rsb_mj.tables.layouts.DrawFile`."""
    rows = rows or GOAL_ROWS
    key = task_key(path)
    try:
        env = GoalEnv(path, cameras=())
    except RsbError as exc:  # a file rsb_mj cannot build: no row
        first = str(exc).splitlines()[0]
        return FileRows(key, {s: [] for s in splits}, {s: f"not built: {first}" for s in splits})
    out: dict[str, list[Episode]] = {}
    short: dict[str, str] = {}
    try:
        for split in splits:
            hopeless = next((s for s in splits[: splits.index(split)] if not out[s]), None)
            if hopeless is not None:  # every seed of a split failed: the next is not tried
                out[split] = []
                short[split] = f"0 of {rows[split]} rows: not tried ({hopeless}: {short[hopeless]})"
                continue
            want, seed = rows[split], FIRST_SEED[split]
            got: list[Episode] = []
            skipped: list[int] = []
            failed: list[int] = []
            why = ""
            while len(got) < want and len(failed) < SKIP_LIMIT:
                try:
                    draw, poses = env.scene.layout.reset_draw(env.data, seed, env.checker.holds)
                    unseen = head_fails(env)
                except SceneError as exc:
                    unseen = [str(exc).rsplit(" draws (", 1)[-1].removesuffix(")")]
                else:  # a valid start the head camera does not show fails rule 1
                    unseen = [f"rule 1: {u}" for u in unseen]
                if unseen:
                    skipped.append(seed)
                    failed.append(seed)
                    why = unseen[0]
                else:
                    row = Episode(suite, split, len(got), seed, key, poses, draw=draw)
                    got.append(dataclasses.replace(row, skipped=tuple(skipped)))
                    skipped = []
                seed += 1
            out[split] = got
            if len(got) < want:
                short[split] = (
                    f"{len(got)} of {want} rows: seeds {_seeds_text(failed)} gave no valid "
                    f"layout in {ATTEMPTS} draws (last: {why})"
                )
    finally:
        env.close()
    return FileRows(key, out, short)


def redraw_file(job: tuple[str, str, list[tuple[int, dict[str, Any]]], bool]) -> list[str]:
    """Problems of one task file's rows: ``(table file, task path, [(line, row dict)],
    settle)``; each row re-drawn, an eval row settled again when ``settle`` (module level:
    a mapper's workers import it)."""
    name, path, numbered, settle = job
    rows = [(line, Episode.from_dict(d, goal=True)) for line, d in numbered]
    try:
        env = GoalEnv(path, cameras=())
    except RsbError as exc:
        return [f"{name}:{rows[0][0]}: {task_key(path)}: cannot be built: {exc}"]
    problems = []
    try:
        for line, row in rows:
            where = f"{name}:{line}: {row.task} row {row.index} (seed {row.seed}, draw {row.draw})"
            if row.draw >= ATTEMPTS:
                problems.append(f"{where}: draw {row.draw} is past the {ATTEMPTS} a seed has")
                continue
            fresh = next(itertools.islice(env.scene.layout.layouts(row.seed), row.draw, None))
            if fresh != row.layout:
                diff = [o for o in [*fresh, *row.layout] if fresh.get(o) != row.layout.get(o)]
                problems.append(
                    f"{where}: the layout differs from its seed's draw in "
                    f"{', '.join(dict.fromkeys(diff))}"
                )
                continue
            if settle and row.split == "eval":
                try:
                    why = env.scene.layout.place(env.data, dict(row.layout), env.checker.holds)
                except SceneError as exc:
                    why = str(exc)
                if why is not None:
                    problems.append(f"{where}: the layout is not a valid start ({why})")
    finally:
        env.close()
    return problems


__all__ = ["freeze_file", "redraw_file"]
