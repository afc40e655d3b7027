"""Frozen episode tables of a task file: ``rsb episodes build path/to/task.bddl``.

Row ``i`` of a task file's (split) table is the episode ``rsb eval TASK.bddl`` evaluates as
row ``i``: ``sample_episode`` of the task with the seed fixed by (file path as given, split,
``i``) (:func:`rsb_mj.tables.episode_source.load_episode`). Building writes those rows
as ``{stem}.{split}.jsonl`` (one :meth:`~rsb_mj.episodes.episode.Episode.to_dict` row per line, the
format of ``tasks/episodes``) into ``episodes/`` beside the task file, or ``--out DIR``; the
bytes depend on the task file, its question bank and template files and the path as given,
so a table freezes exactly what a run will see and a changed input shows as changed bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError, EvalError
from rsb_mj.tables.episode_source import load_episode
from rsb_mj.tables.files import dumps, sha256
from rsb_mj.tables.rsb import default_rows


@dataclass(frozen=True)
class TaskTable:
    """One written table: its path, row count, sha256 and whether the bytes changed."""

    path: Path
    rows: int
    sha256: str
    changed: bool


def task_rows(task: str, split: str, rows: int) -> list[Episode]:
    """Rows ``0..rows-1`` of the task file ``task`` and ``split`` (see the module docstring).

    Raises:
        EpisodeError: for a task file that does not lint clean or cannot draw an episode.
    """
    try:
        return [load_episode(task, split, i) for i in range(rows)]
    except EvalError as exc:
        raise EpisodeError(str(exc)) from None


def build_task_tables(
    task: str, splits: tuple[str, ...], out_dir: Path | None = None, rows: int | None = None
) -> list[TaskTable]:
    """Write the tables of the task file ``task`` for ``splits``.

    Args:
        task: the task file path (as ``rsb eval`` is given it).
        splits: ``("eval",)``, ``("train",)`` or both.
        out_dir: destination folder (default: ``episodes/`` beside the task file).
        rows: rows per table (default: 500 eval, 1,000 train, as for the suites).
    """
    path = Path(task)
    if not path.is_file():
        raise EpisodeError(f"task file {task!r} not found")
    folder = path.parent / "episodes" if out_dir is None else out_dir
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for split in splits:
        data = dumps(task_rows(task, split, default_rows(split) if rows is None else rows))
        target = folder / f"{path.stem}.{split}.jsonl"
        changed = not target.is_file() or target.read_bytes() != data
        if changed:
            atomic_write_bytes(target, data)
        out.append(TaskTable(target, data.count(b"\n"), sha256(data), changed))
    return out
