"""The tasks of an evaluation run: checked before any work, identified by their digest, and
held to that identity by the run folder.

* :func:`check_task_files` lints every task file of the run in the parent process, so a
  broken one (a bad question bank, a file outside the task's folder) stops the run with its
  findings instead of failing every episode.
* :func:`task_digests` gives each suite's digest (:mod:`rsb_mj.lang.digest`: the task file
  and every file it names). ``run.json`` keeps them as ``"tasks": {suite: {"sha256": ...,
  "files": {name: sha256}}}``; :func:`check_held` refuses a task that changed since, naming
  the files that changed, and :func:`check_records` refuses scored records whose
  ``sim.task_sha256`` is another task's (folders from before ``run.json`` kept digests).
* :func:`repeated_questions` warns when the rows of a task file drawing from a question bank
  repeat questions (each row draws its question independently, seeded by the row).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rsb_mj.episodes.sources import resolve_source
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.lang.digest import TaskDigest, referenced_names
from rsb_mj.lang.task import task_of
from rsb_mj.tables.episode_source import Source, load_episode


def check_task_files(sources: Iterable[Source]) -> None:
    """Parse and lint every task file among ``sources`` (each worker does it again).

    Raises:
        TaskFileError: listing a task file's errors (``path:line:col: CODE ...``).
    """
    for source in sources:
        if source.task_file:
            source.problem  # noqa: B018 (parsed and linted, or raises; a goal task file:
            # checked buildable, or the itemised list and its tier)


def task_digests(sources: Iterable[Source]) -> dict[str, TaskDigest]:
    """The digest of each source's task, keyed by the name its jobs and records carry.

    Raises:
        EvalError: for a missing or unreadable task file.
    """
    return {source.name: source.digest for source in sources}


def entry(digest: TaskDigest) -> dict[str, Any]:
    """A task's entry in ``run.json``."""
    return {"sha256": digest.sha256, "files": dict(digest.files)}


def held_tasks(run_file: Path, description: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The ``tasks`` of a run description (``{}`` for one written before they were kept).

    Raises:
        EvalError: for an entry of the wrong shape.
    """
    tasks = description.get("tasks", {})
    valid = isinstance(tasks, dict) and all(
        isinstance(v, dict)
        and isinstance(v.get("sha256"), str)
        and isinstance(v.get("files"), dict)
        for v in tasks.values()
    )
    if not valid:
        raise EvalError(
            f"{run_file}: not a valid run description ('tasks' must map each suite to "
            "{'sha256': ..., 'files': {...}}); fix or remove it, or use another --out"
        )
    return tasks


def check_held(
    run_file: Path, held: dict[str, dict[str, Any]], digests: dict[str, TaskDigest]
) -> None:
    """Refuse a task whose digest differs from the one the run folder holds.

    Raises:
        EvalError: naming the suite, the files that changed and both digests.
    """
    for suite, digest in digests.items():
        kept = held.get(suite)
        if kept is None or kept["sha256"] == digest.sha256:
            continue
        changed = digest.changed_files(kept["files"]) or [digest.files[0][0]]
        raise EvalError(
            f"{run_file}: the task of {suite} changed since this run directory started: "
            f"{', '.join(changed)} differ (task sha256 {kept['sha256'][:16]} then, "
            f"{digest.sha256[:16]} now); its records would pool two different tasks; use "
            "another --out, or restore the files"
        )


def check_records(
    path: Path, records: Iterable[EpisodeRecord], digests: dict[str, TaskDigest]
) -> None:
    """Refuse scored records run on another version of their task.

    Raises:
        EvalError: naming the records file, the suite and both digests.
    """
    for record in records:
        held = str((record.sim or {}).get("task_sha256") or "")
        digest = digests.get(record.suite)
        if record.is_error or not held or digest is None or held == digest.sha256:
            continue
        raise EvalError(
            f"{path}: records of {record.suite} were run with task sha256 {held[:16]}; the "
            f"task ({', '.join(name for name, _ in digest.files)}) is now "
            f"{digest.sha256[:16]}; use another --out for the changed task"
        )


def repeated_questions(sources: Iterable[Source], rows: range) -> list[str]:
    """A warning per task file among ``sources`` that draws from a question bank and whose
    ``rows`` of its split repeat questions (the suites' frozen tables are not concerned).

    Raises:
        RsbError: when such a task file or its bank is invalid.
    """
    notes = []
    for source in sources:
        if not source.task_file:
            continue
        name, split, path = source.name, source.split, source.path
        named = referenced_names(path.read_text(encoding="utf-8", errors="replace"), str(path))
        banks = [n for n, what in named if what == "question bank"]
        if not banks:
            continue
        ids = [load_episode(name, split, i).question_id for i in rows]
        distinct = len(set(ids))
        if distinct == len(ids):
            continue

        pool = resolve_source(task_of(source.problem).source).pool(split) or ()
        notes.append(
            f"{name}: {len(ids)} {split} episodes draw {distinct} distinct questions of the "
            f"{len(pool)} in the {split} split of {banks[0]} (each row draws its question "
            "independently, so questions repeat; a larger bank repeats less)"
        )
    return notes
