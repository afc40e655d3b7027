"""Where episodes come from: the one lookup of ``rsb eval``, ``rsb expert-check``, ``rsb demos``.

Every episode is fully determined by (source, split, index), so every command that names the
same row runs the same question, mapping, layout, instruction and seed.

A *source* is a suite name (``RSB-Math-4``) or a task file (``tasks/rsb_math_4_objects.bddl``,
any lint-clean ``.bddl``):

* a suite's row ``index`` is row ``index`` of its frozen table (:mod:`rsb_mj.episodes`),
  checked against the manifest once per process before any row is used
  (:func:`rsb_mj.tables.families.verify_table`); a row outside the table, or a missing,
  damaged or hand-edited table, is an error (never a fresh draw);
* a task file's row ``index`` is drawn with ``sample_episode`` from :func:`row_seed`
  (file name, split, index), and carries the path as given as its ``suite``;
* a goal task file's (:func:`is_goal_source`) row ``index`` is the
  bare seed ``index`` (:meth:`~rsb_mj.episodes.episode.Episode.seeded`, its task
  the path as given: the environment draws the layout from the seed); its step limit is
  :data:`~rsb_mj.suites.GOAL_MAX_STEPS`;
* a shipped goal file run as a file of its goal suite (``rsb eval --suite vla-arena``: the
  source ``"vla-arena::vla_arena/.../x.bddl"``, :func:`goal_row_source`) has as row
  ``index`` row ``index`` of the file's rows in the suite's frozen table
  (:mod:`rsb_mj.tables.layouts`: a seed and its frozen layout), its ``task`` the source;
* with ``tables`` (``rsb eval --tables DIR``), row ``index`` of a suite or task file is row
  ``index`` of its private eval table in ``DIR`` (:mod:`rsb_mj.tables.private.build`), checked
  against that folder's private manifest first. Records of such rows name the manifest's
  sha256 instead of the row (:func:`rsb_mj.evaluation.private_records.private_record`).

A run resolves each source once (:func:`resolve`) into a :class:`Source` value that every
pre-flight check reads: its name, task file, step limit, row count, digest and parsed task.

The task language, the table families and the private manifests are imported where a row
is first looked up: ``rsb --help`` imports this module and must stay fast.
"""

from __future__ import annotations

import dataclasses
import zlib
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EvalError, TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import Task, task_family
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import GOAL_MAX_STEPS, TASK_MAX_STEPS, Suite, get_suite

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.lang.digest import TaskDigest

#: Rows a task file offers (seeded draws; a bound so a typo cannot ask for 10^11 episodes).
TASK_FILE_ROWS = 100_000


def is_task_file(source: str) -> bool:
    """True when ``source`` names a task file rather than a suite."""
    return source.endswith(".bddl")


#: Between a goal suite's name and a task file of it in a goal row source.
GOAL_ROW_SEP = "::"


def goal_row_source(suite: str, path: str | Path) -> str:
    """The source of the shipped task file ``path`` run as a file of the goal suite
    ``suite`` (``rsb eval --suite vla-arena``): ``"vla-arena::vla_arena/.../x.bddl"``; its
    row ``index`` is row ``index`` of the file's rows in the suite's frozen table
    (:mod:`rsb_mj.tables.layouts`), not a bare seed."""
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.tables.layouts import table_suite_of, task_key

    return f"{table_suite_of(suite).name}{GOAL_ROW_SEP}{task_key(path)}"


def split_goal_row_source(source: str) -> tuple[str, str] | None:
    """``(goal suite, task file relative to tasks/)`` of a :func:`goal_row_source`, or None
    for any other source."""
    suite, sep, key = source.partition(GOAL_ROW_SEP)
    return (suite, key) if sep and is_task_file(source) else None


def task_path(source: str) -> Path:
    """The task file of a suite or task-file source (of a goal row source, the shipped
    file).

    Raises:
        EvalError: for a task file that does not exist, or an unknown suite.
    """
    row = split_goal_row_source(source)
    if row is not None:
        path = tasks_dir() / row[1]
        if not path.is_file():
            raise EvalError(f"goal suite {row[0]}: task file {row[1]!r} not found in tasks/")
        return path
    if is_task_file(source):
        path = Path(source)
        if path.is_dir():  # a folder named *.bddl
            raise EvalError(f"task file {source!r} is a folder; name the .bddl file in it")
        if not path.is_file():
            raise EvalError(f"task file {source!r} not found")
        return path
    return get_suite(source).path


@cache
def is_goal_source(source: str) -> bool:
    """True when ``source`` is a goal task file (:func:`rsb_mj.lang.task.task_family`: no
    ``(:question ...)`` and not ``(:domain rsb)``) or a goal suite's row source; a file that
    does not parse is left to the question path, which reports it."""
    if split_goal_row_source(source) is not None:
        return True
    if not is_task_file(source) or not Path(source).is_file():
        return False
    try:
        return task_family(parse_file(Path(source))) == "goal"
    except TaskError:
        return False


@cache
def goal_task(source: str) -> Task:
    """The goal task of a goal task file, refused unless it runs: lint-clean as a scene
    rsb_mj builds (:func:`rsb_mj.lang.linter.load_goal_task`; cached per process).

    Raises:
        TaskError: the itemised list of the file's lint errors (with its tier when rsb_mj
            does not build it).
    """
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.lang.linter import load_goal_task

    return load_goal_task(task_path(source))


def label(source: str) -> str:
    """Short display name: the suite name, or the task file's name."""
    return Path(source).name if is_task_file(source) else source


def step_limit(source: str) -> int:
    """The control-step limit of a source (a suite's; 400 for a question task file, 600
    for a goal task file)."""
    if is_goal_source(source):
        return GOAL_MAX_STEPS
    return TASK_MAX_STEPS if is_task_file(source) else get_suite(source).max_steps


def row_seed(source: str, split: str, index: int) -> int:
    """The seed of row ``index`` of a task file's ``split``: fixed by (file name, split, index),
    so the same file gives the same rows wherever it lies."""
    key = [zlib.crc32(label(source).encode()), zlib.crc32(split.encode()), int(index)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def load_problem(source: str) -> Problem:
    """The parsed and linted task file of ``source`` (cached per process: :func:`goal_task`,
    :func:`_question_problem`); of a goal task file, the problem of its :func:`goal_task`
    (linted as a scene rsb_mj builds)."""
    if is_goal_source(source):
        return goal_task(source).problem
    return _question_problem(task_path(source))


@cache
def _question_problem(path: Path) -> Problem:
    """The parsed and linted question task file ``path`` (cached per process)."""
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.lang import load_task

    return load_task(path)


@cache
def _table(suite: Suite, split: str) -> tuple[Episode, ...]:
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.tables.families import load_table

    # verified against the manifest first: a missing, damaged or edited table is an error
    return tuple(load_table(suite, split))


#: What :func:`load_episode` and friends take as ``tables``: a private folder, or None
#: (``""`` too) for the shipped tables and task files' seeded draws.
Tables = str | Path | None


def private_table(source: str, split: str, tables: str | Path) -> tuple[Episode, ...]:
    """The rows of ``source``'s private eval table in folder ``tables``, verified against
    its private manifest (once per file and process); a task file's rows carry its path as
    given as their ``suite``.

    Raises:
        EvalError: for the train split, or a task file whose table in ``tables`` was drawn
            for another file of the same stem;
        EpisodeError: for a missing, unlisted or changed table (naming the folder).
    """
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.tables.private.manifest import load_private
    from rsb_mj.tables.private.target import file_of

    if split != "eval":
        raise EvalError(f"--tables {tables}: private tables hold eval rows only (--split eval)")
    manifest, rows = load_private(Path(tables), file_of(source))
    if not is_task_file(source):
        return tuple(rows)
    drawn = manifest.entry(file_of(source))["task"]
    if Path(drawn).name != Path(source).name:
        raise EvalError(
            f"--tables {tables}: its table {file_of(source)} was drawn for {drawn}, not {source}"
        )
    return tuple(dataclasses.replace(row, suite=source) for row in rows)


def tables_sha256(tables: str | Path) -> str:
    """The sha256 of the private manifest of folder ``tables`` (what its records name).

    Raises:
        EpisodeError: for a folder without a private manifest.
    """
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.tables.private.manifest import read_private

    return read_private(Path(tables)).sha256


def load_episode(source: str, split: str, index: int, tables: Tables = None) -> Episode:
    """Row ``index`` of (source, split): a suite's frozen row, a task file's seeded draw, or
    with ``tables`` the row of the private table (see the module docstring).

    Raises:
        EvalError: when the index is outside the table (or a task file's row bound);
        EpisodeError: when a suite's table is missing or damaged.
    """
    return row_of(Source(source, source, split, str(tables or "")), index)


def table_size(source: str, split: str, tables: Tables = None) -> int:
    """Number of rows of the frozen (suite, split) table (of a task file: its row bound; with
    ``tables``: of the private table)."""
    if tables:
        return len(private_table(source, split, tables))
    if is_task_file(source):
        task_path(source)
        rows = goal_rows(source, split)
        return TASK_FILE_ROWS if rows is None else len(rows)
    return len(_table(get_suite(source), split))


def goal_rows(source: str, split: str) -> tuple[Episode, ...] | None:
    """The frozen rows of a goal row source (:func:`goal_row_source`) of ``split``, or None
    for any other source (its rows are bare seeds or a suite's table).

    Raises:
        EpisodeError: for a goal table that is missing or changed.
    """
    row = split_goal_row_source(source)
    if row is None:
        return None
    # deferred: rsb --help imports this module (see the module docstring)
    from rsb_mj.tables.layouts import file_rows

    return file_rows(row[0], split, tasks_dir() / row[1])


def table_rows(suite: str, split: str, tables: Tables = None) -> tuple[Episode, ...]:
    """Every row of the frozen (suite, split) table, or of the private table in ``tables``
    (cached per process)."""
    if tables:
        return private_table(suite, split, tables)
    return _table(get_suite(suite), split)


def check_rows(
    source: str,
    split: str,
    n: int,
    start: int,
    *,
    count_flag: str = "-n",
    tables: Tables = None,
) -> None:
    """Refuse rows ``start .. start + n - 1`` that lie outside (source, split)'s table.

    Raises:
        EvalError: naming the table size and the valid range, in the command's flags.
    """
    rows = table_size(source, split, tables)
    if start + n > rows:
        raise EvalError(
            f"--start {start} {count_flag} {n}: the {source} {split} table has {rows} rows "
            f"(valid: --start + {count_flag} <= {rows})"
        )


@dataclass(frozen=True)
class Source:
    """One source of a run's episodes, resolved once (:func:`resolve`); each fact is looked
    up on first use, in the order the run's checks ask for them, and kept.

    Attributes:
        given: the source as the user wrote it (messages name it).
        name: the name its jobs and records carry (a suite's own spelling; a task file as
            given).
        split: the split the run draws.
        tables: the private tables' folder, or ``""`` for the shipped tables.
    """

    given: str
    name: str
    split: str
    tables: str = ""

    @property
    def task_file(self) -> bool:
        """Whether the source is a task file (else a suite)."""
        return is_task_file(self.name)

    @cached_property
    def suite(self) -> Suite | None:
        """The suite it names (:func:`rsb_mj.suites.get_suite`, looked up once), None for a
        task file.

        Raises:
            RsbError: for an unknown suite (naming the valid ones).
        """
        return None if self.task_file else get_suite(self.name)

    @cached_property
    def path(self) -> Path:
        """Its task file.

        Raises:
            EvalError: for a task file that does not exist.
        """
        return task_path(self.name) if self.suite is None else self.suite.path

    @cached_property
    def max_steps(self) -> int:
        """Its control-step limit at 20 Hz (a suite's, 400 for a question task file, 600
        for a goal task file: :func:`step_limit`)."""
        if self.goal:
            return GOAL_MAX_STEPS
        return TASK_MAX_STEPS if self.suite is None else self.suite.max_steps

    @cached_property
    def rows(self) -> int:
        """Rows of its (split) table: the frozen or private table's, a task file's bound."""
        if self.suite is not None and not self.tables:
            return len(_table(self.suite, self.split))
        return table_size(self.name, self.split, self.tables or None)

    @cached_property
    def digest(self) -> TaskDigest:
        """The digest of its task (:mod:`rsb_mj.lang.digest`: the file and every file it
        names).

        Raises:
            EvalError: for a missing or unreadable task file.
        """
        from rsb_mj.lang.digest import task_digest  # (see the module docstring)

        path = self.path
        try:
            return task_digest(path)
        except OSError as exc:
            raise EvalError(f"{path}: cannot read the task file ({exc.strerror or exc})") from None

    @cached_property
    def goal(self) -> bool:
        """Whether the source is a goal task file (:func:`is_goal_source`)."""
        return is_goal_source(self.name)

    @cached_property
    def task(self) -> Task:
        """Its goal task, refused unless it runs (:func:`goal_task`; a goal source's only).

        Raises:
            TaskError: the itemised list of the file's lint errors (and its tier).
        """
        return goal_task(self.name)

    @cached_property
    def problem(self) -> Problem:
        """Its parsed and linted task (as :func:`load_problem`); of a goal task file, the
        problem of its :attr:`task`."""
        return self.task.problem if self.goal else _question_problem(self.path)

    def episode(self, index: int) -> Episode:
        """Its row ``index``: a suite's frozen row, a task file's seeded draw (a goal task
        file's bare seed, a goal row source's frozen row), or the row of its private table
        (see the module docstring; :func:`load_episode` names the source by a string).

        Raises:
            EvalError: when the index is outside the table (or a task file's row bound);
            EpisodeError: when a suite's table is missing or damaged.
        """
        return row_of(self, index)

    def table(self) -> tuple[Episode, ...]:
        """Every row of its frozen (split) table, or of its private table (a suite's)."""
        return table_rows(self.name, self.split, self.tables or None)


def row_of(of: Source, index: int) -> Episode:
    """Row ``index`` of the resolved source ``of``: what :meth:`Source.episode` and
    :func:`load_episode` return (the run's pre-flight checks read it here)."""
    source, split = of.name, of.split
    if of.tables:
        rows = private_table(source, split, of.tables)
        if not 0 <= index < len(rows):
            raise EvalError(
                f"episode index {index} is outside the private {label(source)} table in "
                f"{of.tables} (valid: 0..{len(rows) - 1})"
            )
        return rows[index]
    if of.task_file:
        if not 0 <= index < TASK_FILE_ROWS:
            raise EvalError(
                f"episode index {index} is outside the rows of {source} "
                f"(valid: 0..{TASK_FILE_ROWS - 1})"
            )
        if of.goal:
            _ = of.task  # buildable, or the itemised list and the tier
            rows = goal_rows(source, split)
            if rows is None:
                return Episode.seeded(source, index, split)
            if not 0 <= index < len(rows):
                raise EvalError(
                    f"episode index {index} is outside the {len(rows)} {split} rows of "
                    f"{source} (valid: 0..{len(rows) - 1})"
                )
            # the run's name for its task, as a bare seed's: records and resumes match jobs
            return dataclasses.replace(rows[index], task=source)
        # deferred: rsb --help imports this module (see the module docstring)
        from rsb_mj.episodes import sample_episode

        episode = sample_episode(
            of.problem,
            suite="",
            split=split,
            index=index,
            seed=row_seed(source, split, index),
        )
        return dataclasses.replace(episode, suite=source)
    assert of.suite is not None  # a task file's rows were returned above
    table = _table(of.suite, split)
    if not 0 <= index < len(table):
        raise EvalError(
            f"episode index {index} is outside the {source} {split} table "
            f"(valid: 0..{len(table) - 1})"
        )
    return table[index]


def resolve(source: str, split: str, tables: Tables = None) -> Source:
    """``source`` (a suite name or a task file) as a :class:`Source` of ``split``.

    Raises:
        EvalError: for an unknown suite (naming the valid ones).
    """
    if is_task_file(source):
        return Source(source, source, split, str(tables or ""))
    suite = get_suite(source)
    resolved = Source(source, suite.name, split, str(tables or ""))
    resolved.__dict__["suite"] = suite  # what resolving learned (Source.suite), kept
    return resolved
