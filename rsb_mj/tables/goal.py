"""The frozen tables of the goal suites (``vla-arena``, ``libero``, ``libero-layouts``).

A goal suite's table (:func:`rsb_mj.tables.files.table_name`, e.g. ``vla-arena.eval.jsonl``
in ``tasks/episodes``) holds, for every task file of the suite, :data:`GOAL_ROWS` rows of
each split: one :class:`~rsb_mj.episodes.episode.Episode` JSON row per line, sorted
by task file then row index. It is listed in the one manifest with the question tables
(``"family": "goal"``), with its sha256 and row count, the mujoco version and the digest of
the code that froze it (:func:`code_digest`), and the files whose table is short
(``"short"``: task file -> why).

**How rows are drawn** (:mod:`rsb_mj.env.goal_tables`, ``rsb episodes build vla-arena``):
the seeds of a split are tried in order from :data:`FIRST_SEED` (eval 0, 1, 2 ...; train
100000, 100001 ...: disjoint); a seed whose generator gives a valid layout within its
draws (:meth:`rsb_mj.scene.goal_layout.GoalLayout.reset`) becomes the next row, with the draw
kept (``draw``) and its poses (``layout``); a seed that gives none is **skipped to the next
seed** and recorded in the following row's ``skipped``. A split of a file stops at the
:data:`SKIP_LIMIT`-th skipped seed: its table is then short and the manifest says why; when
the eval split got no row at all, the train split is not tried (its table is empty too), and
a file that cannot be built has no row. The VLA-Arena levels
(``vla-arena-l0`` ...) read ``vla-arena``'s rows of their files.

This module reads the tables (their rows: :func:`rsb_mj.tables.files.read_table`, as every
table's) and checks them against the manifest (the bytes); freezing them
and re-drawing their rows needs the scene and the goal checker, so it lives in
:mod:`rsb_mj.env.goal_tables`. :func:`short_table_findings` is the lint finding RSB535 of a
shipped file whose table is short (``rsb lint`` adds it to the file's findings).
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path
from typing import Any

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError, EvalError
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.parser import parse_text
from rsb_mj.lang.rules.runtime_goal import SHORT_TABLE
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import GOAL_SUITES, GoalSuite, goal_suite
from rsb_mj.tables.files import (
    MANIFEST,
    episodes_dir,
    read_manifest,
    read_table,
    sha256,
    table_name,
)

#: The manifest's ``family`` of a goal table.
GOAL_FAMILY = "goal"
#: Rows per task file of each split.
GOAL_ROWS = {"eval": 5, "train": 20}
#: The first seed tried per split (eval and train seeds never meet).
FIRST_SEED = {"eval": 0, "train": 100_000}
#: Skipped seeds after which a file's split stops, its table short (each costs
#: :data:`~rsb_mj.scene.goal_layout.ATTEMPTS` settles, about 1.5 s).
SKIP_LIMIT = 5
#: The modules whose code decides a goal layout (hashed into the manifest's ``code``).
CODE_MODULES = (
    "rsb_mj/scene",
    "rsb_mj/lang/goal_task.py",
    "rsb_mj/scoring/goal_checker.py",
    "rsb_mj/scoring/predicates",
    "rsb_mj/workspace.py",
    "rsb_mj/env/rsb_env.py",
    "rsb_mj/env/goal_tables.py",
)


def table_suites() -> list[GoalSuite]:
    """The goal suites that own tables (the others read one of these)."""
    return [s for s in GOAL_SUITES.values() if not s.table]


def table_suite_of(name: str) -> GoalSuite:
    """The goal suite whose tables hold ``name``'s rows.

    Raises:
        EvalError: for a name that is not a goal suite (naming the valid ones).
    """
    suite = goal_suite(name)
    if suite is None:
        raise EvalError(f"unknown goal suite {name!r}; valid choices: {', '.join(GOAL_SUITES)}")
    return GOAL_SUITES[suite.table_suite]


def task_key(path: str | Path) -> str:
    """A shipped task file's name in its rows: its path relative to ``tasks/`` (POSIX)."""
    return Path(path).resolve().relative_to(tasks_dir().resolve()).as_posix()


def code_digest() -> str:
    """sha256 over the source of :data:`CODE_MODULES` (each ``.py`` file's path and bytes, in
    path order): which code froze a table."""
    root = Path(__file__).resolve().parents[2]
    files: list[Path] = []
    for name in CODE_MODULES:
        p = root / name
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p] if p.is_file() else []
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def goal_entries(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """The manifest entries of the goal tables (file name -> entry)."""
    return {k: v for k, v in read_manifest(folder).items() if v.get("family") == GOAL_FAMILY}


def verify_goal_table(suite: str, split: str, folder: Path | None = None) -> Path:
    """Check the goal table of ``suite`` (or of the suite holding its rows) and ``split``
    against the manifest: listed, with the manifest's sha256. Returns its path.

    Raises:
        EpisodeError: for a table missing from the folder or the manifest, or one whose bytes
            differ (``rsb episodes check`` names the rows that differ).
    """
    owner = table_suite_of(suite).name
    folder = episodes_dir() if folder is None else folder
    path = folder / table_name(owner, split)
    if not path.is_file():
        raise EpisodeError(
            f"goal table {path} not found; freeze it with: rsb episodes build {owner}"
        )
    entry = goal_entries(folder).get(path.name)
    if entry is None:
        raise EpisodeError(
            f"{path}: not a goal table of the manifest {folder / MANIFEST}; freeze it with: "
            f"rsb episodes build {owner}"
        )
    digest = sha256(path.read_bytes())
    if digest != entry["sha256"]:
        raise EpisodeError(
            f"{path}: sha256 {digest[:12]} is not the manifest's {entry['sha256'][:12]}: the "
            f"table was changed by hand; `rsb episodes check {owner}` names the rows; restore "
            f"it (git checkout {path.name}) or refreeze it: rsb episodes build {owner}"
        )
    return path


def goal_table(suite: str, split: str) -> tuple[Episode, ...]:
    """Every row of the goal table holding ``suite``'s rows, checked against the manifest
    first (:func:`verify_goal_table`; read once per table and process).

    Raises:
        EvalError: for an unknown goal suite; EpisodeError: a missing or changed table.
    """
    return _read_owner(table_suite_of(suite).name, split)


@cache
def _read_owner(owner: str, split: str) -> tuple[Episode, ...]:
    return tuple(read_table(verify_goal_table(owner, split), goal=True))


def file_rows(suite: str, split: str, path: str | Path) -> tuple[Episode, ...]:
    """The ``split`` rows of the shipped task file ``path`` in ``suite``'s table, by index."""
    key = task_key(path)
    return tuple(r for r in goal_table(suite, split) if r.task == key)


def suite_episodes(suite: str, split: str, start: int, n: int) -> list[Episode]:
    """Rows ``start .. start + n - 1`` of every task file of ``suite`` (those it has), in
    the suite's file order: the episodes ``rsb eval --suite`` runs.

    Raises:
        EvalError: for rows beyond a full table (:func:`check_goal_rows`) or an unknown suite.
    """
    check_goal_rows(suite, split, n, start)
    table_suite_of(suite)  # an unknown name: refused with the valid ones
    named = goal_suite(suite)
    assert named is not None
    files = {task_key(p) for p in named.files}
    rows = goal_table(suite, split)
    return [r for r in rows if r.task in files and start <= r.index < start + n]


def row_path(row: Episode) -> Path:
    """The task file of a row: under ``tasks/`` for a suite's row, else as the row gives it."""
    return tasks_dir() / row.task if row.suite else Path(row.task)


def short_files(suite: str, split: str) -> dict[str, str]:
    """Task file (relative to ``tasks/``) -> why its ``split`` table is short, for the files
    of ``suite``'s table with fewer than :data:`GOAL_ROWS` rows."""
    name = table_name(table_suite_of(suite).name, split)
    return dict(goal_entries().get(name, {}).get("short", {}))


def _shipped_key(path: str | Path) -> str | None:
    """:func:`task_key` of a file under ``tasks/``, else None."""
    try:
        return task_key(path)
    except ValueError:
        return None


@cache
def _short_reasons(manifest: Path, mtime_ns: int) -> dict[str, list[tuple[str, str]]]:
    """Task file -> ``[(table file, why short)]`` of the goal tables listed in ``manifest``
    (cached per manifest version)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for name, entry in sorted(goal_entries(manifest.parent).items()):
        for task, why in entry.get("short", {}).items():
            out.setdefault(task, []).append((name, why))
    return out


#: The object a short table's reason names last (``... (last: water_ball_1 is not ...``).
_LAST_OBJECT = re.compile(r"\(last: ([A-Za-z_][\w-]*) ")


def short_table_findings(
    path: str | Path, text: str | None = None, *, target: str | None = None
) -> list[Diagnostic]:
    """RSB535 (:data:`~rsb_mj.lang.rules.runtime_goal.SHORT_TABLE`) for the task file
    ``path`` when it is a shipped goal file whose frozen table is short, else ``[]``: at the
    declaration of the object the manifest's reason names last (else at ``:init``), with
    the eval table's reason (else the first short table's); an error with ``target="rsb"``.

    Args:
        path: the linted file; text: its text (read from ``path`` when None).
    """
    key = _shipped_key(path)
    manifest = episodes_dir() / MANIFEST
    if key is None or not manifest.is_file():
        return []
    reasons = _short_reasons(manifest, manifest.stat().st_mtime_ns).get(key)
    if not reasons:
        return []
    table, why = reasons[0]
    text = Path(path).read_text(encoding="utf-8") if text is None else text
    problem = parse_text(text, str(path))
    span = next((s for name, s in problem.blocks if name == "init"), problem.span)
    found = _LAST_OBJECT.search(why)
    for decl in (*problem.fixtures, *problem.objects):
        if found and decl.name == found.group(1):
            span = decl.span
    owner = table.split(".", 1)[0]
    tables = ", ".join(name for name, _ in reasons)
    return [
        Diagnostic(
            SHORT_TABLE.code,
            SHORT_TABLE.name,
            "error" if target == "rsb" else SHORT_TABLE.severity,
            f"the frozen {owner} table holds too few rows of this file ({table}: {why}); "
            f"rsb eval --suite, rsb demos --suite and the vla-eval plugin leave it out "
            f"(short: {tables}); refreeze its rows after changing the scene: "
            f"rsb episodes build {owner}",
            str(path),
            span if isinstance(span, Span) else problem.span,
        )
    ]


def check_goal_rows(
    suite: str, split: str, n: int, start: int, count_flag: str = "--episodes"
) -> None:
    """Refuse rows ``start .. start + n - 1`` beyond a file's full table.

    Raises:
        EvalError: naming the table size per file and the valid range.
    """
    rows = GOAL_ROWS[split]
    if start < 0 or start + n > rows:
        raise EvalError(
            f"--start {start} {count_flag} {n}: the {suite} {split} table has {rows} rows per "
            f"task file (valid: --start + {count_flag} <= {rows})"
        )


__all__ = [
    "CODE_MODULES",
    "FIRST_SEED",
    "GOAL_FAMILY",
    "GOAL_ROWS",
    "SKIP_LIMIT",
    "check_goal_rows",
    "code_digest",
    "file_rows",
    "goal_entries",
    "goal_table",
    "row_path",
    "short_files",
    "short_table_findings",
    "suite_episodes",
    "table_suite_of",
    "table_suites",
    "task_key",
    "verify_goal_table",
]
