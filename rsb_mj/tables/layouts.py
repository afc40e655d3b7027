"""Layout tables: the frozen tables of the goal suites (``vla-arena``, ``libero``,
``libero-layouts``), rows of a seed and the layout frozen from it, per task file.

A goal suite's table (:func:`rsb_mj.tables.files.table_name`, e.g. ``vla-arena.eval.jsonl``
in ``tasks/episodes``) holds, for every task file of the suite, :data:`GOAL_ROWS` rows of
each split: one :class:`~rsb_mj.episodes.episode.Episode` JSON row per line, sorted
by task file then row index. It is listed in the one manifest with the question tables
(``"family": "goal"``), with its sha256 and row count, the mujoco version and the digest of
the code that froze it (:func:`code_digest`), and the files whose table is short
(``"short"``: task file -> why).

**How rows are drawn** (``rsb episodes build vla-arena``: :func:`rsb_mj.tables.freeze.freeze_tables`
with the env's drawing of a file's rows, :func:`rsb_mj.env.settled_layouts.freeze_file`):
the seeds of a split are tried in order from :data:`FIRST_SEED` (eval 0, 1, 2 ...; train
100000, 100001 ...: disjoint); a seed whose generator gives a valid layout within its
draws (:meth:`rsb_mj.scene.region_layout.GoalLayout.reset`) becomes the next row, with the draw
kept (``draw``) and its poses (``layout``); a seed that gives none is **skipped to the next
seed** and recorded in the following row's ``skipped``. A split of a file stops at the
:data:`SKIP_LIMIT`-th skipped seed: its table is then short and the manifest says why; when
the eval split got no row at all, the train split is not tried (its table is empty too), and
a file that cannot be built has no row. The VLA-Arena levels
(``vla-arena-l0`` ...) read ``vla-arena``'s rows of their files.

This module says which rows a layout table holds: it reads them (as every table is read:
:func:`rsb_mj.tables.files.verify_listed`, :func:`~rsb_mj.tables.files.read_table`), makes
the tables to write from the rows drawn per file (:func:`layout_tables`; written by
:func:`rsb_mj.tables.files.write_tables`, as every table is) and checks them
(:func:`check_layout_tables`). Drawing a file's rows and re-drawing them needs the scene and
the goal checker, so those two functions come from the env stage
(:mod:`rsb_mj.env.settled_layouts`) as arguments. :func:`short_table_findings` is the lint
finding RSB535 of a shipped file whose table is short (``rsb lint`` adds it to the file's
findings).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
    FrozenTable,
    episodes_dir,
    read_listed_table,
    read_manifest,
    read_table,
    row_order,
    table_name,
    verify_listed,
)
from rsb_mj.version import mujoco_version

#: The manifest's ``family`` of a goal table.
GOAL_FAMILY = "goal"
#: Rows per task file of each split.
GOAL_ROWS = {"eval": 5, "train": 20}
#: The first seed tried per split (eval and train seeds never meet).
FIRST_SEED = {"eval": 0, "train": 100_000}
#: Skipped seeds after which a file's split stops, its table short (each costs
#: :data:`~rsb_mj.scene.region_layout.ATTEMPTS` settles, about 1.5 s).
SKIP_LIMIT = 5
#: The modules whose code decides a goal layout (hashed into the manifest's ``code``).
CODE_MODULES = (
    "rsb_mj/scene",
    "rsb_mj/lang/buildable.py",
    "rsb_mj/scoring/goal_checker.py",
    "rsb_mj/scoring/predicates",
    "rsb_mj/workspace.py",
    "rsb_mj/env/rsb_env.py",
    "rsb_mj/env/settled_layouts.py",
)

#: ``mapper(fn, jobs) -> results``, in the jobs' order (serial when None).
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


@dataclass(frozen=True)
class FileRows:
    """The rows drawn for one task file: per split, its rows and (when short) why."""

    task: str
    rows: dict[str, list[Episode]]
    short: dict[str, str]


#: ``draw(path, suite, splits, rows) -> FileRows``: a task file's rows of each split
#: (:func:`rsb_mj.env.settled_layouts.freeze_file`: settled layouts that pass rule 1).
DrawFile = Callable[[str, str, tuple[str, ...], dict[str, int] | None], FileRows]
#: ``redraw((table file, task path, [(line, row dict)], settle)) -> problems``: a task
#: file's rows drawn again and compared (:func:`rsb_mj.env.settled_layouts.redraw_file`).
RedrawFile = Callable[[tuple[str, str, list[tuple[int, dict[str, Any]]], bool]], list[str]]


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


def verify_layout_table(suite: str, split: str, folder: Path | None = None) -> Path:
    """Check the goal table of ``suite`` (or of the suite holding its rows) and ``split``
    against the manifest (:func:`rsb_mj.tables.files.verify_listed`, as every table):
    listed as a goal table, with the manifest's sha256. Returns its path.

    Raises:
        EpisodeError: for a table missing from the folder or the manifest, or one whose bytes
            differ (``rsb episodes check`` names the rows that differ).
    """
    owner = table_suite_of(suite).name
    folder = episodes_dir() if folder is None else folder
    return verify_listed(folder, table_name(owner, split), build=owner, goal=True)


def goal_table(suite: str, split: str) -> tuple[Episode, ...]:
    """Every row of the goal table holding ``suite``'s rows, checked against the manifest
    first (:func:`verify_layout_table`; read once per table and process).

    Raises:
        EvalError: for an unknown goal suite; EpisodeError: a missing or changed table.
    """
    return _read_owner(table_suite_of(suite).name, split)


@cache
def _read_owner(owner: str, split: str) -> tuple[Episode, ...]:
    return tuple(read_table(verify_layout_table(owner, split), goal=True))


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


def _draw_job(job: tuple[DrawFile, str, str, tuple[str, ...], dict[str, int] | None]) -> FileRows:
    """``draw(path, suite, splits, rows)`` of one file (module level: a mapper's workers
    import it)."""
    draw, *args = job
    return draw(*args)


def _lazy(fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
    return (fn(j) for j in jobs)  # one job at a time: each file logged as it ends


def _serial(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    return [fn(j) for j in jobs]


def layout_tables(
    names: list[str],
    draw: DrawFile,
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    rows: int | None = None,
    mapper: Mapper | None = None,
    files: list[Path] | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[FrozenTable]:
    """The tables of the goal suites ``names`` (a level names ``vla-arena``) for ``splits``,
    each file's rows drawn by ``draw`` (module docstring), with their manifest entries, for
    :func:`rsb_mj.tables.files.write_tables`.

    Args:
        draw: a task file's rows (:func:`rsb_mj.env.settled_layouts.freeze_file`).
        out_dir: where the tables kept in part (``files``) are read (default
            ``tasks/episodes``).
        rows: rows per task file and split (default :data:`GOAL_ROWS`).
        mapper: runs the per-file jobs (e.g. a process pool); one after another when None.
        files: only these task files (of each suite, those it has); the other files' rows
            (and ``short`` reasons) already in ``out_dir``'s table are kept, so refreezing
            the files a change touched gives the bytes of a full freeze; default all.
        log: called with a line per task file drawn.
    """
    out_dir = episodes_dir() if out_dir is None else out_dir
    owners = list(dict.fromkeys(table_suite_of(n).name for n in names))
    per_split = {s: rows for s in splits} if rows is not None else None
    digest, version = code_digest(), mujoco_version()
    manifest = read_manifest(out_dir)
    tables = []
    for owner in owners:
        paths = GOAL_SUITES[owner].files
        if files is not None:  # the given files of this suite's table
            owned = {task_key(p) for p in paths}
            # once each: a tier-A LIBERO file given once per suite naming it (libero and
            # libero-layouts) was drawn, and its rows written, twice
            paths = list({task_key(p): p for p in files if task_key(p) in owned}.values())
        jobs = [(draw, str(p), owner, splits, per_split) for p in paths]
        frozen: list[FileRows] = []
        for got in (mapper or _lazy)(_draw_job, jobs):
            frozen.append(got)
            n = ", ".join(f"{s} {len(got.rows[s])}" for s in splits)
            log(f"{owner}: {got.task}: {n} rows" + ("" if not got.short else " (short)"))
        for split in splits:
            path = out_dir / table_name(owner, split)
            mine = {f.task for f in frozen}
            kept: list[Episode] = []
            short: dict[str, str] = {}
            old = manifest.get(path.name, {})
            if files is not None and path.is_file() and old.get("family") == GOAL_FAMILY:
                kept = [r for r in read_table(path, goal=True) if r.task not in mine]
                short = {t: w for t, w in old.get("short", {}).items() if t not in mine}
            table = sorted([*kept, *(r for f in frozen for r in f.rows[split])], key=row_order)
            short |= {f.task: f.short[split] for f in frozen if split in f.short}
            entry = {
                "family": GOAL_FAMILY,
                "files": len({r.task for r in table} | set(short)),
                "rows_per_file": (rows if rows is not None else GOAL_ROWS[split]),
                "first_seed": FIRST_SEED[split],
                "short": dict(sorted(short.items())),
                "mujoco": version,
                "code": digest,
            }
            tables.append(FrozenTable(owner, split, table, goal=True, entry=entry, short=short))
    return tables


def check_layout_tables(
    names: list[str] | None,
    redraw: RedrawFile,
    folder: Path | None = None,
    complete: bool = True,
    max_report: int = 5,
    settle: bool = True,
    mapper: Mapper | None = None,
    files: list[Path] | None = None,
) -> list[str]:
    """Verify the goal tables of ``names`` (default: every goal suite) in ``folder``
    (default ``tasks/episodes``): each against the manifest (sha256 and rows, as every
    table: :func:`rsb_mj.tables.files.read_listed_table`; the mujoco version), every file
    of the suite with its rows or a reason in ``short``, each file's rows re-drawn by
    ``redraw``. Returns the problems, at most ``max_report`` changed rows per table (then a
    count).

    Args:
        redraw: a file's rows drawn again (:func:`rsb_mj.env.settled_layouts.redraw_file`).
        complete: a missing table, or a suite's file with neither rows nor a ``short``
            reason, is a problem too.
        settle: also settle every eval row and check it is a valid start.
        files: check only these task files' rows (default: every file of the suite).
    """
    folder = episodes_dir() if folder is None else folder
    manifest = read_manifest(folder)
    owners = (
        list(dict.fromkeys(table_suite_of(n).name for n in names))
        if names
        else [s.name for s in table_suites()]
    )
    problems: list[str] = []
    for owner in owners:
        for split in ("eval", "train"):
            name = table_name(owner, split)
            entry = manifest.get(name)
            if entry is None or entry.get("family") != GOAL_FAMILY:
                if complete:
                    problems.append(f"{name}: not in the manifest; run: rsb episodes build {owner}")
                continue
            problems += _check_table(owner, split, folder, entry, complete, max_report, settle,
                                     mapper, files, redraw)  # fmt: skip
    return problems


def _check_table(
    owner: str,
    split: str,
    folder: Path,
    entry: dict[str, Any],
    complete: bool,
    max_report: int,
    settle: bool,
    mapper: Mapper | None,
    files: list[Path] | None,
    redraw: RedrawFile,
) -> list[str]:
    name = table_name(owner, split)
    try:
        problems, listed = read_listed_table(folder, name, entry, goal=True)
    except EpisodeError as exc:
        return [str(exc)]
    if listed is None:
        return problems
    if entry.get("mujoco") != mujoco_version():
        problems.append(
            f"{name}: frozen with mujoco {entry.get('mujoco')}, this is {mujoco_version()}: "
            f"layouts may settle differently; refreeze: rsb episodes build {owner}"
        )
    by_task: dict[str, list[tuple[int, Episode]]] = {}
    for line, row in enumerate(listed, start=1):
        by_task.setdefault(row.task, []).append((line, row))
        if row.suite != owner or row.split != split:
            problems.append(f"{name}:{line}: a row of {row.suite} {row.split}, not {owner} {split}")
    shipped = {task_key(p): p for p in GOAL_SUITES[owner].files}
    wanted = {task_key(p) for p in files} if files is not None else set(shipped)
    per_file = entry.get("rows_per_file", 0)
    short = entry.get("short", {})
    for task in sorted(wanted):
        got = by_task.get(task, [])
        if [r.index for _, r in got] != list(range(len(got))):
            problems.append(f"{name}: {task}: row indices are not 0..{len(got) - 1} in order")
        if complete and len(got) < per_file and task not in short:
            problems.append(
                f"{name}: {task}: {len(got)} of {per_file} rows and no reason in the manifest"
            )
    for task in sorted(set(by_task) - set(shipped)):
        problems.append(f"{name}:{by_task[task][0][0]}: {task} is not a file of {owner}")
    jobs = [
        (name, str(shipped[t]), [(ln, r.to_dict()) for ln, r in by_task[t]], settle)
        for t in sorted(wanted & set(by_task))
    ]
    changed = [p for found in (mapper or _serial)(redraw, jobs) for p in found]
    problems += changed[:max_report]
    if len(changed) > max_report:
        problems.append(f"{name}: {len(changed)} problems in its rows in all")
    if changed and entry.get("code") != code_digest():
        problems.append(
            f"{name}: frozen by other code (digest {str(entry.get('code'))[:12]}, this is "
            f"{code_digest()[:12]}): refreeze: rsb episodes build {owner}"
        )
    return problems


__all__ = [
    "CODE_MODULES",
    "FIRST_SEED",
    "GOAL_FAMILY",
    "GOAL_ROWS",
    "SKIP_LIMIT",
    "DrawFile",
    "FileRows",
    "Mapper",
    "RedrawFile",
    "check_goal_rows",
    "check_layout_tables",
    "code_digest",
    "file_rows",
    "goal_entries",
    "goal_table",
    "layout_tables",
    "row_path",
    "short_files",
    "short_table_findings",
    "suite_episodes",
    "table_suite_of",
    "table_suites",
    "task_key",
    "verify_layout_table",
]
