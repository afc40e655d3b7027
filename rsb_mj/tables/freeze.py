"""Freezing tables: ``rsb episodes build SUITE...``, one entry point for every kind of table.

:func:`freeze_tables` draws the tables of the suites it is given, each kind by how its rows
are drawn, and writes them all the same way (:func:`rsb_mj.tables.files.write_tables`: the
JSONL rows in :func:`~rsb_mj.tables.files.row_order`, each file only when its bytes change,
and their entries in the one manifest). What differs by kind is only the drawing:

* an RSB suite's rows: the balanced sampler (:func:`rsb_mj.tables.rsb.seeded_tables`; a
  level's rows derived from its base's);
* an Act2Answer suite's rows: every item in both plate orders
  (:func:`rsb_mj.tables.paired.paired_tables`), less the items ``reader`` finds illegible;
* a goal suite's rows: per task file, seeds whose layout settles into a valid start that
  passes rule 1 (:func:`rsb_mj.tables.layouts.layout_tables`). That needs the environment,
  a later stage than this one, so the caller passes the drawing of one file in
  (``draw_layouts``: :func:`rsb_mj.env.settled_layouts.freeze_file`), as it passes the
  legibility check of the Act2Answer items (``reader``).

The bytes depend on the suites, the code and mujoco, not on ``mapper``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rsb_mj.errors import EpisodeError
from rsb_mj.suites import get_suite, goal_suite
from rsb_mj.tables.files import BuildResult, FrozenTable, write_tables
from rsb_mj.tables.layouts import DrawFile, layout_tables
from rsb_mj.tables.paired import Reader, paired_tables
from rsb_mj.tables.rsb import Mapper, seeded_tables


def freeze_tables(
    names: list[str] | None,
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    rows: int | None = None,
    mapper: Mapper | None = None,
    *,
    reader: Reader | None = None,
    draw_layouts: DrawFile | None = None,
    files: list[Path] | None = None,
    log: Callable[[str], None] = print,
) -> list[BuildResult]:
    """Draw and write the tables of the suites ``names`` (None: every RSB suite, levels
    included), each by its kind (module docstring), into ``out_dir`` (default
    ``tasks/episodes``) and its manifest.

    Args:
        splits: which tables of each suite.
        rows: rows per table (a goal suite: per task file); default: each kind's.
        mapper: runs the independent draws (``rsb episodes build --jobs N``: a process pool),
            ``mapper(fn, jobs) -> [fn(job) for job in jobs]``; None: in this process.
        reader: the Act2Answer items' legibility check (None: keep every item).
        draw_layouts: a goal task file's rows (:data:`~rsb_mj.tables.layouts.DrawFile`);
            needed when ``names`` holds a goal suite.
        files: a goal suite's task files to draw again (the others' rows kept).
        log: a line per goal task file drawn and per Act2Answer item dropped.

    Raises:
        EpisodeError: for a goal suite without ``draw_layouts``; RsbError: for an unknown
            suite.
    """
    named = list(names or [])
    goal = [n for n in named if goal_suite(n)]
    others = [n for n in named if n not in goal]
    paired = [n for n in others if get_suite(n).family == "a2a"]
    seeded = [n for n in others if n not in paired]
    tables: list[FrozenTable] = []
    if seeded or not named:
        tables += seeded_tables(seeded or None, splits, out_dir, rows, mapper)
    if paired:
        tables += paired_tables(paired, splits, reader, log)
    if goal:
        if draw_layouts is None:
            raise EpisodeError(
                f"{goal[0]}: a goal suite's rows are drawn in the environment: pass "
                "draw_layouts=rsb_mj.env.settled_layouts.freeze_file"
            )
        tables += layout_tables(goal, draw_layouts, splits, out_dir, rows, mapper, files, log)
    return write_tables(out_dir, tables)


__all__ = ["freeze_tables"]
