"""The sources of an ``rsb eval`` run, from the task files and suites the command names.

``rsb eval`` parses its arguments and hands what they name here (:func:`goal_run`,
:func:`question_sources`); what a run is made of is decided in this stage, not by the
command:

* a *goal run* (:class:`GoalRun`) names goal task files (no ``(:question ...)``, asked of
  the source: :attr:`rsb_mj.tables.episode_source.Source.goal`) and goal suites
  (:data:`rsb_mj.suites.GOAL_SUITES`): each goal suite becomes the goal row sources of its
  files rsb_mj builds and whose frozen table has the rows asked for
  (:func:`~rsb_mj.tables.episode_source.goal_row_source`), the others are itemised as
  skipped; its episode count defaults to every row of a goal suite's table (10 seeds for
  files alone); goal and question sources do not mix, and goal sources have no private
  tables;
* a *question run* names question suites (groups such as ``all`` expanded) and task files.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rsb_mj.errors import EvalError, TaskError
from rsb_mj.suites import GOAL_SUITES, expand_suites, goal_suite
from rsb_mj.tables.episode_source import Source, goal_row_source, is_task_file, resolve


@dataclass(frozen=True)
class GoalRun:
    """The sources of a goal run (:func:`goal_run`).

    Attributes:
        sources: the goal task files and goal row sources to run, as jobs name them.
        episodes: episodes per source (the one given, else the default of the sources).
        skipped: one itemised line per goal suite file not run (rsb_mj cannot build it,
            or its frozen table is short), named after the run's summary.
        warnings: one line per difference between a file and the scene rsb_mj builds
            (``warning: FILE:line:col: ...``), for stderr before the run.
        resolved: the sources as resolved here (:class:`~rsb_mj.tables.episode_source.
            Source`, named as ``sources`` names them, with their family and goal task):
            what the run's config takes, so the runner does not look them up again.
    """

    sources: tuple[str, ...]
    episodes: int
    skipped: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    resolved: tuple[Source, ...] = field(default=(), compare=False)


def goal_run(
    tasks: Sequence[str],
    suites: Sequence[str],
    *,
    split: str,
    episodes: int | None,
    start: int,
    tables: Path | None = None,
) -> GoalRun | None:
    """The goal run that ``tasks`` (task files) and ``suites`` (suite names) ask for, or
    None when they name no goal source (a question run: :func:`question_sources`).

    Raises:
        EvalError: for goal sources with ``tables``, goal and question sources in one run,
            rows outside a goal suite's table, suites none of whose files can run.
    """
    given = [Source(p, os.path.normpath(p), split) for p in tasks if is_task_file(p)]
    found = [s for s in given if s.goal]
    files = [s.given for s in found]
    named = [name for name in suites if goal_suite(name)]
    if not (files or named):
        return None
    if tables is not None:
        what = f"goal task file {files[0]}" if files else f"goal suite {named[0]}"
        raise EvalError(
            f"--tables {tables}: the {what} has no private draw (goal tasks' rows are "
            "seeds of public files, their goal in the instruction); run it sealed on its own "
            "rows instead: --sealed --secret-file FILE (without --tables)"
        )
    if len(files) != len(tasks) or len(named) != len(suites):
        given = [*files, *named]
        raise EvalError(
            "goal task files (without (:question ...)) and goal suites "
            f"({', '.join(GOAL_SUITES)}) run on their own: give only goal task files and "
            f"goal suites, or none; goal ones given: {', '.join(given)}"
        )
    # deferred: the goal tables and the goal reader, only for a goal run
    from rsb_mj.lang.buildable import warnings_of
    from rsb_mj.tables.layouts import GOAL_ROWS, check_goal_rows, file_rows, short_files, task_key

    if episodes is None:  # a goal suite: every row of its table; files alone: 10 seeds
        rows = GOAL_ROWS[split]
        if named and not 0 <= start < rows:  # else "--episodes -5", never given
            raise EvalError(
                f"--start {start}: the {goal_suite(named[0]).name} {split} table has "
                f"{rows} rows per task file (valid: 0..{rows - 1})"
            )
        episodes = rows - start if named else 10
    sources = list(found)
    skipped = []  # a suite's files rsb_mj cannot build, or short of rows: named, not run
    for name in named:
        check_goal_rows(name, split, episodes, start)
        reasons = short_files(name, split)
        for path in goal_suite(name).files:
            row = resolve(goal_row_source(name, path), split)
            why = unbuildable(row)
            if why:
                skipped.append(why)
            elif len(file_rows(name, split, path)) < start + episodes:
                rows = len(file_rows(name, split, path))
                why = reasons.get(task_key(path), "no reason in the manifest")
                skipped.append(f"{path}: its frozen {split} table has {rows} rows ({why})")
            else:
                sources.append(row)
    if not sources:  # every file of the suites named is skipped: nothing would run
        raise EvalError(
            f"--suite {', '.join(named)}: none of its files has the {split} rows asked "
            f"({start}..{start + episodes - 1}); each named with why:\n"
            + "\n".join(skipped)
            + "\nrun a file by "
            "its path (rsb eval FILE.bddl) to draw its layouts from seeds, not the frozen table"
        )
    unique: dict[str, Source] = {}
    for source in sources:  # each once, where first named
        unique.setdefault(source.name, source)
    sources = list(unique.values())
    warnings = []
    for source in sources:
        path = source.path
        warnings += [f"warning: {i.format(str(path))}" for i in warnings_of(source.task)]
    names = tuple(s.name for s in sources)
    return GoalRun(names, episodes, tuple(skipped), tuple(warnings), resolved=tuple(sources))


def question_sources(tasks: Sequence[str], suites: Sequence[str]) -> tuple[str, ...]:
    """The sources of a question run: ``suites`` with their groups expanded
    (:func:`rsb_mj.suites.expand_suites`), then the task files ``tasks`` (normalised), each
    once.

    Raises:
        EvalError: for a positional source that is not a task file.
    """
    out = expand_suites(list(suites))
    for path in tasks:
        if not path.endswith(".bddl"):
            raise EvalError(f"{path!r}: a task file ends in .bddl; name suites with --suite")
        out.append(os.path.normpath(path))
    return tuple(dict.fromkeys(out))


def unbuildable(source: Path | Source) -> str:
    """The itemised list of what rsb_mj cannot build in the goal task file ``source`` (a
    path, or a resolved goal source: its goal task, kept), with its positions and tier, or
    ``""`` when it builds (a parse, no scene)."""
    # deferred: the goal reader, only for a goal run
    from rsb_mj.lang.linter import load_goal_task

    try:
        if isinstance(source, Source):
            _ = source.task
        else:
            load_goal_task(source)
    except TaskError as exc:
        return str(exc)
    return ""
