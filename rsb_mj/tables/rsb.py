"""Frozen RSB tables: their sizes, row seeds and builds (``tasks/episodes/RSB-*.jsonl``).

One JSONL file per suite and split (``RSB-Math-4.eval.jsonl``), one
:meth:`Episode.to_dict` row per line, plus ``manifest.json`` with each file's row count and
sha256 (the files: :mod:`rsb_mj.tables.files`). Sizes: ``EVAL_ROWS`` = 500 eval
episodes (unseen templates) and ``TRAIN_ROWS`` = 1,000 train episodes (seen templates) per
suite; the train table is a fixed sample for demonstrations, kept small so the repository
stays small (any number more can be drawn with :func:`rsb_mj.episodes.sample_episode` and
fresh seeds).

Row ``i`` keeps the first seed of ``row_seed(suite, split, i, attempt)``, ``attempt = 0, 1,
...`` whose episode passes the *balance* rules (:mod:`rsb_mj.tables.balance`), so every
row is reproduced by ``sample_episode(problem, suite=, split=, index=i, seed=row["seed"])``
alone. The train tables are built first and the eval table of a suite is balanced against
the probes fitted on its train table, so ``rsb audit`` measures those probes on an eval
table they could not have been fitted on.

A level's table (``RSB-Math-4-L1``, see :mod:`rsb_mj.suites`) is not balanced on its own: it
is derived from its base suite's table (:mod:`rsb_mj.tables.levels`).

Building all twelve tables (9,000 rows) takes a few minutes of CPU (the rows that need many
seeds, and fitting the classifiers); ``rsb episodes build --jobs 2`` splits it. ``rsb
episodes check`` (:mod:`rsb_mj.tables.check`) does not refit anything: every row is
re-drawn from its seed alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.sources import QuestionSource
from rsb_mj.errors import EpisodeError
from rsb_mj.splits import EVAL_ROWS, TRAIN_ROWS
from rsb_mj.suites import ALL_SUITES, get_suite
from rsb_mj.tables.balance import Seeds, draw_balanced
from rsb_mj.tables.files import (
    BuildResult,
    FrozenTable,
    dumps,
    episodes_dir,
    load_suite_problem,
    table_name,
    write_tables,
)
from rsb_mj.tables.levels import derive_table

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem


def default_rows(split: str) -> int:
    """Rows of a table of ``split``."""
    return EVAL_ROWS if split == "eval" else TRAIN_ROWS


def row_seed(suite: str, split: str, index: int, attempt: int) -> int:
    """The ``attempt``-th candidate seed of row ``index``: the first 4 bytes of
    ``sha256("rsb_mj/{suite}/{split}/{index}/{attempt}")`` as an unsigned integer."""
    digest = hashlib.sha256(f"rsb_mj/{suite}/{split}/{index}/{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


#: ``mapper(fn, jobs) -> [fn(job) for job in jobs]``, in order, anywhere (see :func:`build_all`).
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def build_table(
    suite_name: str,
    split: str,
    rows: int | None = None,
    problem: Problem | None = None,
    train: list[Episode] | None = None,
) -> tuple[list[Episode], int]:
    """Draw the table of ``suite_name`` and ``split``.

    Args:
        suite_name: the suite.
        split: ``"eval"`` or ``"train"``.
        rows: rows of the table (default :func:`default_rows`).
        problem: the parsed task file (default: the suite's).
        train: for an eval table, the suite's train table: the eval table is then also
            balanced against the probes fitted on it
            (:func:`~rsb_mj.tables.balance.learned_heuristics`).

    Returns:
        (episodes, number of rows whose heuristic rules had to be dropped).
    """
    suite = get_suite(suite_name)
    if suite.level:
        raise EpisodeError(
            f"{suite.name} is level L{suite.level} of {suite.base}: its table is derived from "
            f"{suite.base}'s (derive_table), not balanced on its own"
        )
    problem = load_suite_problem(suite) if problem is None else problem

    def seeds(index: int, attempt: int) -> int:
        return row_seed(suite.name, split, index, attempt)

    rows = default_rows(split) if rows is None else rows
    return draw_balanced(
        problem, suite=suite.name, split=split, rows=rows, seeds=seeds, train=train
    )


@dataclass(frozen=True)
class DrawRequest:
    """What a private draw (:mod:`rsb_mj.tables.private.build`) asks a table family for one
    table (:attr:`rsb_mj.tables.families.Family.private`).

    Attributes:
        problem: the parsed task file.
        suite: the name the rows carry (``""`` for a task file's).
        rows: rows wanted (None: the family's default).
        seeds: ``(index, attempt) -> seed`` of row ``index`` (the secret's).
        key: a secret token for the family's fixed shuffles.
        source: the held-out reserve the questions come from
            (:class:`~rsb_mj.tables.reserve.ReserveSource`).
        train: the suite's shipped train table (an eval table is balanced against the
            probes fitted on it), None for a task file.
        base: a level suite's base rows (of the same private draw), else None.
        reader: the legibility check of answer-showing candidates (None: keep every item).
    """

    problem: Problem
    suite: str
    rows: int | None
    seeds: Seeds
    key: str
    source: QuestionSource
    train: list[Episode] | None = None
    base: list[Episode] | None = None
    reader: Callable[[Problem, Any], str | None] | None = None


def private_rows(request: DrawRequest) -> list[Episode]:
    """The rows of a private seeded table: a level's derived from its base's private rows
    (:func:`derive_table`), else drawn balanced (:func:`draw_balanced`) from the request's
    seeds and reserve. Default rows: ``EVAL_ROWS``, or for a listed reserve half its size
    (so each question is asked once), whichever is fewer.

    Raises:
        EpisodeError: for more rows than half a listed reserve, naming its size.
    """
    if request.base is not None:
        return derive_table(request.suite, request.base, request.problem, request.source)
    pool = request.source.pool("eval")
    most = EVAL_ROWS if pool is None else min(EVAL_ROWS, len(pool) // 2)
    rows = most if request.rows is None else request.rows
    if pool is not None and 2 * rows > len(pool):
        raise EpisodeError(
            f"{request.suite or request.problem.path}: the held-out reserve of source "
            f"{request.source.name} holds {len(pool)} questions; a private table asks each "
            f"once and keeps them drawn at random, so it has at most {len(pool) // 2} rows "
            f"(--rows {rows})"
        )
    if rows < 1:
        raise EpisodeError(f"--rows {rows}: a private table needs at least one row")
    episodes, _ = draw_balanced(
        request.problem,
        suite=request.suite,
        split="eval",
        rows=rows,
        seeds=request.seeds,
        source=request.source,
        train=request.train,
    )
    return episodes


def _build_bytes(
    name: str, split: str, rows: int | None, train: bytes | None = None
) -> tuple[bytes, int, int]:
    """(JSONL bytes, rows, relaxed rows) of one table; a top-level function for workers.
    ``train``: the JSONL bytes of the suite's train table, for an eval table."""
    episodes, relaxed = build_table(name, split, rows, train=_parse(train))
    return dumps(episodes), len(episodes), relaxed


def _build_job(job: tuple[str, str, int | None, bytes | None]) -> tuple[bytes, int, int]:
    """:func:`_build_bytes` of one ``(name, split, rows[, train])`` job (for a mapper)."""
    return _build_bytes(*job)


def _serial(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    return [fn(job) for job in jobs]


def _parse(data: bytes | None) -> list[Episode] | None:
    if data is None:
        return None
    lines = data.decode("utf-8").splitlines()
    return [Episode.from_dict(json.loads(line), goal=False) for line in lines if line.strip()]


def seeded_tables(
    suites: list[str] | None = None,
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    rows: int | None = None,
    mapper: Mapper | None = None,
) -> list[FrozenTable]:
    """The tables of the RSB ``suites`` (default: every suite, levels included), drawn
    balanced (a level's derived from its base's), for
    :func:`rsb_mj.tables.files.write_tables`: the question rows' part of
    ``rsb episodes build`` (:func:`rsb_mj.tables.freeze.freeze_tables`).

    Args:
        suites: suite names; None for all of :data:`rsb_mj.suites.ALL_SUITES`.
        splits: which tables of each suite.
        out_dir: where a base suite's train table not built now is read from (before the
            shipped one): an eval table is balanced against the probes fitted on it.
        rows: rows per table (default: ``EVAL_ROWS`` / ``TRAIN_ROWS``). A bigger balanced
            train table is the way to get more demonstrations than the shipped 1,000: free
            draws (``RsbEnv.reset()`` without an episode) keep the sources' own shortcuts.
            A level's table has its base table's rows.
        mapper: runs the independent table builds, ``mapper(fn, jobs)`` ->
            ``[fn(job) for job in jobs]`` in order (``rsb episodes build --jobs N`` passes
            :func:`rsb_mj.evaluation.pool.map_jobs` on N workers); None: one after another
            in this process. The rows do not depend on it.
    """
    out_dir = episodes_dir() if out_dir is None else out_dir
    names = [get_suite(s).name for s in suites] if suites else list(ALL_SUITES)
    base_names = [n for n in names if not ALL_SUITES[n].level]
    level_names = [n for n in names if ALL_SUITES[n].level]
    # Train tables first: an eval table is balanced against the probes fitted on its
    # suite's train table (the one built now, else the one in out_dir).
    order = [s for s in ("train", "eval") if s in splits]
    pairs = [(name, split) for split in order for name in names]
    done: dict[tuple[str, str], tuple[bytes, int, int]] = {}
    for split in order:
        todo = [(name, split, rows) for name in base_names]
        if split == "eval":
            todo = [(*t, _train_bytes(t[0], done, out_dir)) for t in todo]
        built_now = (mapper or _serial)(_build_job, todo)
        done.update({(t[0], split): b for t, b in zip(todo, built_now, strict=True)})
        for name in level_names:
            base = _parse(_base_bytes(ALL_SUITES[name].base, split, done, out_dir)) or []
            derived = derive_table(name, base)
            done[(name, split)] = (dumps(derived), len(derived), 0)
    return [
        FrozenTable(
            name, split, _parse(done[(name, split)][0]) or [], relaxed=done[(name, split)][2]
        )
        for name, split in pairs
    ]


def build_all(
    suites: list[str] | None = None,
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    rows: int | None = None,
    mapper: Mapper | None = None,
) -> list[BuildResult]:
    """Build and write the tables of the RSB ``suites`` (default: every suite, levels
    included; :func:`seeded_tables`) into ``out_dir`` (default ``tasks/episodes``) and the
    manifest (:func:`rsb_mj.tables.files.write_tables`)."""
    return write_tables(out_dir, seeded_tables(suites, splits, out_dir, rows, mapper))


def _base_bytes(
    name: str, split: str, done: dict[tuple[str, str], tuple[bytes, int, int]], out_dir: Path
) -> bytes:
    """The ``split`` table of base suite ``name``: built in this run, else read from
    ``out_dir``, else the shipped one."""
    if (name, split) in done:
        return done[(name, split)][0]
    for folder in (out_dir, episodes_dir()):
        path = folder / table_name(name, split)
        if path.is_file():
            return path.read_bytes()
    raise EpisodeError(
        f"{name}: its levels need the table {table_name(name, split)}; build it with: "
        f"rsb episodes build {name}"
    )


def _train_bytes(
    name: str, done: dict[tuple[str, str], tuple[bytes, int, int]], out_dir: Path
) -> bytes:
    """The train table of ``name``: built in this run, else read from ``out_dir``, else the
    shipped one."""
    if (name, "train") in done:
        return done[(name, "train")][0]
    for folder in (out_dir, episodes_dir()):
        path = folder / table_name(name, "train")
        if path.is_file():
            return path.read_bytes()
    raise EpisodeError(
        f"{name}: the eval table needs the train table {table_name(name, 'train')}; "
        "build it with: rsb episodes build --split both"
    )


__all__ = [
    "DrawRequest",
    "build_all",
    "build_table",
    "private_rows",
    "row_seed",
    "seeded_tables",
]
