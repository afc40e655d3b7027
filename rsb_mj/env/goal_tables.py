"""Freezing and checking the goal suites' tables (``rsb episodes build|check vla-arena``).

Which rows a table holds and how they are read is :mod:`rsb_mj.tables.goal`. Freezing a row
needs the scene and the goal checker (a seed's draw is kept only if it settles into a valid
start with the goal false, and the head camera shows every object the task names: rule 1 of
:mod:`rsb_mj.env.goal_visibility`, else the seed is skipped as one without a valid layout, the
reason ``rule 1: ...``), so it lives at this stage: :func:`freeze_file` resets a
:class:`~rsb_mj.env.rsb_env.RsbEnv` of the file seed after seed; :func:`freeze_goal_tables`
writes every file's rows and the manifest entries. The bytes depend only on the task files,
the code and mujoco: not on the worker count.

:func:`check_goal_tables` (``rsb episodes check``) checks each table against the manifest
(sha256, rows, the mujoco version), that every file of the suite has its rows (or a reason
in ``short``), re-draws every row's layout from its ``(seed, draw)`` (no physics: the
seed's generator, draw after draw) and compares it bit for bit, and settles every eval row's
layout again and checks it is a valid start. A changed row is named ``file:line``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.env.goal_visibility import head_fails
from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError, RsbError, SceneError
from rsb_mj.scene.goal_layout import ATTEMPTS
from rsb_mj.suites import GOAL_SUITES
from rsb_mj.tables.files import (
    dumps,
    episodes_dir,
    read_manifest,
    read_table,
    sha256,
    table_name,
    write_manifest,
)
from rsb_mj.tables.goal import (
    FIRST_SEED,
    GOAL_FAMILY,
    GOAL_ROWS,
    SKIP_LIMIT,
    code_digest,
    table_suite_of,
    table_suites,
    task_key,
)
from rsb_mj.version import mujoco_version

#: ``mapper(fn, jobs) -> results``, in the jobs' order (serial when None).
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


@dataclass(frozen=True)
class FileRows:
    """The rows frozen for one task file: per split, its rows and (when short) why."""

    task: str
    rows: dict[str, list[Episode]]
    short: dict[str, str]


def _seeds_text(seeds: list[int]) -> str:
    return ", ".join(str(s) for s in seeds[:8]) + (" ..." if len(seeds) > 8 else "")


def freeze_file(
    path: str | Path, suite: str, splits: tuple[str, ...], rows: dict[str, int] | None = None
) -> FileRows:
    """The rows of the shipped task file ``path`` in ``suite``'s tables (module docstring of
    :mod:`rsb_mj.tables.goal`: seeds from :data:`FIRST_SEED`, a seed without a valid layout
    skipped and recorded, a split given up after :data:`SKIP_LIMIT` skipped seeds; when a
    split got no row, the later splits are not tried)."""
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
                    draw, poses = env.scene.reset_draw(env.data, seed, env.checker.holds)
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


@dataclass(frozen=True)
class GoalBuild:
    """One written goal table: its suite, split, path, rows, sha256, whether the bytes
    changed, and its short files."""

    suite: str
    split: str
    path: Path
    rows: int
    sha256: str
    changed: bool
    short: dict[str, str]


def _freeze_job(job: tuple[str, str, tuple[str, ...], dict[str, int] | None]) -> FileRows:
    path, suite, splits, rows = job
    return freeze_file(path, suite, splits, rows)


def freeze_goal_tables(
    names: list[str],
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    rows: int | None = None,
    mapper: Mapper | None = None,
    files: list[Path] | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[GoalBuild]:
    """Freeze the tables of the goal suites ``names`` (a level names ``vla-arena``) for
    ``splits`` into ``out_dir`` (default ``tasks/episodes``) and their manifest entries.

    Args:
        rows: rows per task file and split (default :data:`GOAL_ROWS`).
        mapper: runs the per-file jobs (e.g. a process pool); serial when None.
        files: only these task files of the suite; the other files' rows (and ``short``
            reasons) already in ``out_dir``'s table are kept, so refreezing the files a
            change touched gives the bytes of a full freeze; default all.
        log: called with a line per task file frozen.
    """
    out_dir = episodes_dir() if out_dir is None else out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    owners = list(dict.fromkeys(table_suite_of(n).name for n in names))
    per_split = {s: rows for s in splits} if rows is not None else None
    digest, version = code_digest(), mujoco_version()
    results = []
    manifest = read_manifest(out_dir)
    for owner in owners:
        paths = files if files is not None else GOAL_SUITES[owner].files
        jobs = [(str(p), owner, splits, per_split) for p in paths]
        frozen: list[FileRows] = []
        for got in (mapper or _lazy)(_freeze_job, jobs):
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
            fresh = [r for f in frozen for r in f.rows[split]]
            table = sorted([*kept, *fresh], key=lambda r: (r.task, r.index))
            data = dumps(table, goal=True)
            changed = not path.is_file() or path.read_bytes() != data
            if changed:
                atomic_write_bytes(path, data)
            short |= {f.task: f.short[split] for f in frozen if split in f.short}
            count = len({r.task for r in table} | set(short))
            manifest[path.name] = {
                "suite": owner,
                "split": split,
                "rows": len(table),
                "sha256": sha256(data),
                "family": GOAL_FAMILY,
                "files": count,
                "rows_per_file": (rows if rows is not None else GOAL_ROWS[split]),
                "first_seed": FIRST_SEED[split],
                "short": dict(sorted(short.items())),
                "mujoco": version,
                "code": digest,
            }
            results.append(GoalBuild(owner, split, path, len(table), sha256(data), changed, short))
    write_manifest(out_dir, manifest)
    return results


def _serial(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    return [fn(j) for j in jobs]


def _lazy(fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
    return (fn(j) for j in jobs)  # one job at a time: each file logged as it ends


def _check_file(job: tuple[str, str, list[tuple[int, dict[str, Any]]], bool]) -> list[str]:
    """Problems of one task file's rows: ``(table file, task path, [(line, row dict)],
    settle)``; each row re-drawn, an eval row settled again when ``settle``."""
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
            fresh = next(itertools.islice(env.scene.layouts(row.seed), row.draw, None))
            if fresh != row.layout:
                diff = [o for o in [*fresh, *row.layout] if fresh.get(o) != row.layout.get(o)]
                problems.append(
                    f"{where}: the layout differs from its seed's draw in "
                    f"{', '.join(dict.fromkeys(diff))}"
                )
                continue
            if settle and row.split == "eval":
                try:
                    why = env.scene.place(env.data, dict(row.layout), env.checker.holds)
                except SceneError as exc:
                    why = str(exc)
                if why is not None:
                    problems.append(f"{where}: the layout is not a valid start ({why})")
    finally:
        env.close()
    return problems


def check_goal_tables(
    names: list[str] | None = None,
    folder: Path | None = None,
    complete: bool = True,
    max_report: int = 5,
    settle: bool = True,
    mapper: Mapper | None = None,
    files: list[Path] | None = None,
) -> list[str]:
    """Verify the goal tables of ``names`` (default: every goal suite) in ``folder``
    (default ``tasks/episodes``); returns the problems (module docstring), at most
    ``max_report`` changed rows per table (then a count).

    Args:
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
                                     mapper, files)  # fmt: skip
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
) -> list[str]:
    name = table_name(owner, split)
    path = folder / name
    if not path.is_file():
        return [f"{name}: file missing"]
    problems = []
    digest = sha256(path.read_bytes())
    if digest != entry["sha256"]:
        problems.append(
            f"{name}: sha256 {digest[:12]} differs from manifest {entry['sha256'][:12]}"
        )
    if entry.get("mujoco") != mujoco_version():
        problems.append(
            f"{name}: frozen with mujoco {entry.get('mujoco')}, this is {mujoco_version()}: "
            f"layouts may settle differently; refreeze: rsb episodes build {owner}"
        )
    try:
        rows = read_table(path, goal=True)
    except EpisodeError as exc:
        return [*problems, str(exc)]
    if len(rows) != entry["rows"]:
        problems.append(f"{name}: {len(rows)} rows, manifest says {entry['rows']}")
    by_task: dict[str, list[tuple[int, Episode]]] = {}
    for line, row in enumerate(rows, start=1):
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
    changed = [p for found in (mapper or _serial)(_check_file, jobs) for p in found]
    problems += changed[:max_report]
    if len(changed) > max_report:
        problems.append(f"{name}: {len(changed)} problems in its rows in all")
    if changed and entry.get("code") != code_digest():
        problems.append(
            f"{name}: frozen by other code (digest {str(entry.get('code'))[:12]}, this is "
            f"{code_digest()[:12]}): refreeze: rsb episodes build {owner}"
        )
    return problems


__all__ = ["FileRows", "GoalBuild", "check_goal_tables", "freeze_file", "freeze_goal_tables"]
