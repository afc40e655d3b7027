"""The sources of an ``rsb demos`` run, from the task files and suites the command names.

``rsb demos`` parses its arguments and hands what they name here (:func:`goal_demos`); what
a run records is decided in this stage, not by the command, as ``rsb eval``'s run is
(:mod:`rsb_mj.evaluation.run_sources`):

* *goal demonstrations* (:class:`GoalDemos`) name goal task files (no ``(:question ...)``,
  asked of the source: :attr:`rsb_mj.tables.episode_source.Source.goal`) and goal suites
  (:data:`rsb_mj.suites.GOAL_SUITES`); a file's rows are its bare seeds, a goal suite's
  files' rows are those of their frozen train tables
  (:func:`~rsb_mj.tables.episode_source.goal_row_source`), and the suite's files rsb_mj
  cannot build or whose table is short of the rows asked for are itemised as skipped. They
  are recorded on their own (no question source beside them), on the train split, without
  a rationale;
* anything else is one question suite or task file, which the command names itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rsb_mj.errors import RsbError
from rsb_mj.evaluation.run_sources import unbuildable
from rsb_mj.suites import GOAL_SUITES, goal_suite
from rsb_mj.tables.episode_source import goal_row_source, is_task_file, resolve


@dataclass(frozen=True)
class GoalDemos:
    """The sources of a goal demonstrations run (:func:`goal_demos`).

    Attributes:
        sources: the goal task files (as given) and goal row sources to record, each once.
        tasks: how many task files they are (a file named twice, or given and in a suite,
            counts once).
        goal_suite: the goal suites named, by their own names, comma-separated (``""`` for
            task files alone): each demonstration's ``suite`` attribute.
        skipped: one itemised line per goal suite file not recorded (rsb_mj cannot build
            it, or its frozen train table is short), for stderr after the run.
    """

    sources: tuple[str, ...]
    tasks: int
    goal_suite: str
    skipped: tuple[str, ...] = ()


def goal_demos(
    names: Sequence[str], *, split: str, cot: bool, n: int, start: int
) -> GoalDemos | None:
    """The goal demonstrations that ``names`` (task files and suite names, as given) ask
    for, rows ``start .. start + n - 1`` of each, or None when they name no goal source
    (question demonstrations of one suite or task file).

    Raises:
        RsbError: for goal and question sources together, a ``split`` other than train or
            ``cot`` with goal sources, rows outside a goal suite's train table.
    """
    files = [name for name in names if is_task_file(name) and resolve(name, "train").goal]
    suites = [name for name in names if goal_suite(name)]
    if not (files or suites):
        return None
    if len(files) + len(suites) != len(names):
        others = [name for name in names if name not in files and name not in suites]
        raise RsbError(
            f"goal task files and goal suites ({', '.join(GOAL_SUITES)}) are recorded on "
            f"their own: give only those, or one question suite; not goal: {', '.join(others)}"
        )
    if split != "train" or cot:
        raise RsbError(
            "--split and --cot do not apply to goal tasks: they record train episodes (a goal "
            "suite's train table rows, a file's seeds: --start, -n) and have no rationale"
        )
    # deferred: the goal tables, only for goal demonstrations
    from rsb_mj.tables.layouts import check_goal_rows, file_rows, short_files, task_key

    tasks = list(files)
    sources = list(files)  # a goal suite's file: the rows of its frozen train table
    skipped = []
    for name in suites:
        check_goal_rows(name, "train", n, start, count_flag="-n")
        reasons = short_files(name, "train")
        for path in goal_suite(name).files:
            why = unbuildable(path)
            have = () if why else file_rows(name, "train", path)
            if why:
                skipped.append(why)
            elif len(have) < start + n:
                why = reasons.get(task_key(path), "no reason in the manifest")
                skipped.append(f"{path}: its frozen train table has {len(have)} rows ({why})")
            else:
                tasks.append(str(path))
                sources.append(goal_row_source(name, path))
    return GoalDemos(
        sources=tuple(dict.fromkeys(sources)),
        tasks=len(dict.fromkeys(tasks)),
        goal_suite=",".join(goal_suite(name).name for name in suites),
        skipped=tuple(skipped),
    )
