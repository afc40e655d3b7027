"""The tasks of an evaluation run: checked before any work and identified by their digest.

* :func:`check_task_files` lints every task file of the run in the parent process, so a
  broken one (a bad question bank, a file outside the task's folder) stops the run with its
  findings instead of failing every episode.
* :func:`task_digests` gives each suite's digest (:mod:`rsb_mj.lang.digest`: the task file
  and every file it names), which the run folder keeps in ``run.json`` and holds its
  records to (:class:`~rsb_mj.evaluation.run_folder.RunFolder`: a task that changed since
  is refused, naming the files that changed).
* :func:`repeated_questions` warns when the rows of a task file drawing from a question bank
  repeat questions (each row draws its question independently, seeded by the row).
"""

from __future__ import annotations

from collections.abc import Iterable

from rsb_mj.lang.digest import TaskDigest, referenced_names
from rsb_mj.tables.episode_source import Source, row_of


def check_task_files(sources: Iterable[Source]) -> None:
    """Parse and lint every task file among ``sources`` (each worker does it again).

    Raises:
        TaskFileError: listing a task file's errors (``path:line:col: CODE ...``).
    """
    for source in sources:
        if source.task_file:
            source.problem  # noqa: B018 (parsed and linted, or raises; a goal task file:
            # linted as a scene rsb_mj builds, or the itemised list; rsb_mj.lang.linter)


def task_digests(sources: Iterable[Source]) -> dict[str, TaskDigest]:
    """The digest of each source's task, keyed by the name its jobs and records carry.

    Raises:
        EvalError: for a missing or unreadable task file.
    """
    return {source.name: source.digest for source in sources}


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
        ids = [row_of(source, i).question_id for i in rows]
        distinct = len(set(ids))
        if distinct == len(ids):
            continue
        from rsb_mj.episodes.sources import resolve_source
        from rsb_mj.lang.task import task_of

        pool = resolve_source(task_of(source.problem).asked().source).pool(split) or ()
        notes.append(
            f"{name}: {len(ids)} {split} episodes draw {distinct} distinct questions of the "
            f"{len(pool)} in the {split} split of {banks[0]} (each row draws its question "
            "independently, so questions repeat; a larger bank repeats less)"
        )
    return notes
