"""What one private table is drawn for (:mod:`rsb_mj.tables.private.build`): a suite or a task
file, with the label its seeds are keyed by, its table's file name, its family, its parsed
task and the held-out reserve of its question source.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.episodes.sources import resolve_source
from rsb_mj.errors import EpisodeError
from rsb_mj.lang import load_task
from rsb_mj.lang.task import task_of
from rsb_mj.suites import Suite, get_suite
from rsb_mj.tables.families import FAMILIES, Family, family_of
from rsb_mj.tables.files import load_suite_problem, table_name
from rsb_mj.tables.reserve import reserve_source

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem
    from rsb_mj.tables.reserve import ReserveSource

#: The split of every private table.
SPLIT = "eval"


@dataclass(frozen=True)
class Target:
    """What one private table is drawn for: a suite, or a task file (``suite`` None).

    Attributes:
        name: the suite's name, or the task file's path as given.
        suite: the suite, or None for a task file.
    """

    name: str
    suite: Suite | None

    @classmethod
    def of(cls, name: str) -> Target:
        """The target ``name`` names (``*.bddl``: a task file; else a suite).

        Raises:
            EpisodeError: for a task file that is not there; RsbError for an unknown suite.
        """
        if name.endswith(".bddl"):
            if not Path(name).is_file():
                raise EpisodeError(f"task file {name!r} not found")
            return cls(Path(name).as_posix(), None)
        suite = get_suite(name)
        return cls(suite.name, suite)

    @property
    def label(self) -> str:
        """The name seeds are keyed by: the suite's, or the task file's name."""
        return self.suite.name if self.suite else Path(self.name).name

    @property
    def file(self) -> str:
        """The table's file name: ``{suite}.eval.jsonl`` or ``{task stem}.eval.jsonl``."""
        if self.suite:
            return table_name(self.suite.name, SPLIT)
        return f"{Path(self.name).stem}.{SPLIT}.jsonl"

    @property
    def family(self) -> Family:
        """The suite's family; ``rsb`` (seeded draws) for a task file."""
        return family_of(self.suite) if self.suite else FAMILIES["rsb"]

    @cached_property
    def problem(self) -> Problem:
        """The parsed, linted task file."""
        if self.suite:
            return load_suite_problem(self.suite)

        return load_task(self.name)

    @cached_property
    def source(self) -> ReserveSource:
        """The held-out reserve of the task's question source."""
        return reserve_source(resolve_source(task_of(self.problem).asked().source))


def target_of(entry: dict[str, Any]) -> Target:
    """The target a manifest entry was drawn for."""
    return Target.of(entry["suite"] or entry["task"])


def file_of(source: str) -> str:
    """The private table file of an eval source (a suite name or a task file path)."""
    if source.endswith(".bddl"):
        return f"{Path(source).stem}.{SPLIT}.jsonl"
    return table_name(get_suite(source).name, SPLIT)


__all__ = ["SPLIT", "Target", "file_of", "target_of"]
