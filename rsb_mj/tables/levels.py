"""Level tables: a level suite's table derived from its base suite's, and checked against it.

A level's table (``RSB-Math-4-L1``, see :mod:`rsb_mj.suites`) is not balanced on its own: row
``i`` is re-drawn from its base suite's row ``i`` seed with the level's task file
(:func:`derive_table`), which keeps the question, mapping, colors, template, instruction and
candidate layout and adds the level's objects, so its rows differ from the base rows only in
:data:`LEVEL_FIELDS` (:func:`check_level_table`). The balance of the base table carries over.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.sampler import sample_episode
from rsb_mj.episodes.sources import QuestionSource
from rsb_mj.errors import EpisodeError
from rsb_mj.suites import Suite, get_suite
from rsb_mj.tables.files import diff_rows, load_suite_problem, read_table, table_name

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem

#: Fields a level's row may differ in from its base suite's row.
LEVEL_FIELDS = ("suite", "task", "distractors")


def derive_table(
    suite_name: str,
    base: list[Episode],
    problem: Problem | None = None,
    source: QuestionSource | None = None,
) -> list[Episode]:
    """The table of level suite ``suite_name`` from its base suite's table ``base``: row ``i``
    is ``sample_episode`` of the level's task file with base row ``i``'s split, index and seed
    (and ``source``, the one the base rows drew from when it was not the task's).

    Raises:
        EpisodeError: when a re-drawn row differs from its base row in anything but
            :data:`LEVEL_FIELDS` (the level's task file changed what the base draws).
    """
    suite = get_suite(suite_name)
    problem = load_suite_problem(suite) if problem is None else problem
    out = []
    for row in base:
        episode = sample_episode(
            problem,
            suite=suite.name,
            split=row.split,
            index=row.index,
            seed=row.seed,
            source=source,
        )
        fields = [f for f in diff_rows(row, episode) if f not in LEVEL_FIELDS]
        if fields:
            raise EpisodeError(
                f"{suite.name} {row.split} row {row.index}: differs from {row.suite} in "
                f"{', '.join(fields)}; a level may only add objects to its base task file"
            )
        out.append(episode)
    return out


def check_level_table(
    folder: Path, name: str, suite: Suite, episodes: list[Episode], max_report: int
) -> list[str]:
    """Problems of a level's table against its base suite's table in ``folder``: same row
    count, and each row equal to the base row but in :data:`LEVEL_FIELDS`."""
    base_path = folder / table_name(suite.base, episodes[0].split if episodes else "eval")
    if not base_path.is_file():
        return [f"{name}: its base table {base_path.name} is missing"]
    base = read_table(base_path)
    if len(base) != len(episodes):
        return [f"{name}: {len(episodes)} rows, its base table {base_path.name} {len(base)}"]
    out = []
    for row_no, (row, ref) in enumerate(zip(episodes, base, strict=True), start=1):
        fields = [f for f in diff_rows(ref, row) if f not in LEVEL_FIELDS]
        if fields and len(out) < max_report:
            out.append(f"{name}:{row_no}: differs from {base_path.name} in {', '.join(fields)}")
    return out


__all__ = ["LEVEL_FIELDS", "check_level_table", "derive_table"]
