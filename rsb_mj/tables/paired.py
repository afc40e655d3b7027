"""Paired tables: every item of a fixed pool in each plate order (the Act2Answer design).

``tasks/episodes/A2A-<Category>.{eval,train}.jsonl``, listed in the one manifest
(:data:`rsb_mj.tables.files.MANIFEST`) with, per table, the items the legibility check
dropped and why. Rows are episodes of the sampler (:func:`~rsb_mj.episodes.sampler.
draw_semantics`) whose question, correct option and mapping are pinned
(:class:`~rsb_mj.episodes.sampler.Pins`) and whose layout is an *arrangement* of the
candidates over their ``:init`` regions:

* **eval**: the first ``EVAL_ITEMS`` legible eval items of the source, each in both
  arrangements: rows ``2k`` (``original``: every candidate at the centre of its own region)
  and ``2k + 1`` (``swapped``: the positions reversed) are item ``k``; the correct option
  (A or B) is balanced over items (a fixed shuffle of half A, half B), so the correct plate
  is on the left in exactly half the rows of each arrangement and of the table;
* **train**: the first ``TRAIN_ITEMS`` legible train items, one row each, correct option and
  arrangement balanced the same way.

The mapping is A -> the first candidate, B -> the second: the arrangement is what moves the
answer between the sides. Row ``i``'s seed is :func:`rsb_mj.tables.rsb.row_seed` of
(suite, split, i, 0); with everything else pinned it draws the instruction template only.
``rsb episodes check`` rebuilds every table from the items (without the ones the manifest
lists as dropped) and compares bytes; it does not render. Which items are legible is decided
at build time by a *reader* the caller passes (``rsb episodes build`` passes
:func:`rsb_mj.evaluation.legibility.answer_reader`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sampler import Pins, assemble, draw_semantics
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.act2answer import EVAL_ITEMS, TRAIN_ITEMS
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.layout import Pose2D
from rsb_mj.suites import Suite, get_suite
from rsb_mj.tables.files import (
    MANIFEST,
    BuildResult,
    FrozenTable,
    diff_rows,
    dumps,
    episodes_dir,
    load_suite_problem,
    read_listed_table,
    read_manifest,
    table_name,
    write_tables,
)
from rsb_mj.tables.rsb import DrawRequest, row_seed

#: Plate orders (arrangements) an eval item runs in.
ARRANGEMENTS = ("original", "swapped")
#: ``reader(problem, item) -> None`` (legible) or the reason an item is dropped.
Reader = Callable[[Problem, Question], str | None]


def arrangement_layout(problem: Problem, arrangement: str) -> dict[str, Pose2D]:
    """The candidates' poses in ``arrangement`` (table frame, metres; yaw 0): ``original``,
    each at the centre of its ``:init`` region's first rectangle, or ``swapped``, those
    positions in reverse candidate order.

    Raises:
        EpisodeError: for another arrangement name.
    """
    slots = {}
    for name in problem.candidates:
        r = problem.region(problem.placement_of(name)).ranges[0]
        slots[name] = Pose2D(round((r.x0 + r.x1) / 2, 6), round((r.y0 + r.y1) / 2, 6), 0.0)
    if arrangement == "original":
        return slots
    if arrangement == "swapped":
        names = list(slots)
        return dict(zip(names, [slots[n] for n in reversed(names)], strict=True))
    raise EpisodeError(
        f"unknown arrangement {arrangement!r}; valid choices: {', '.join(ARRANGEMENTS)}"
    )


def paired_row(
    problem: Problem,
    item: Question,
    *,
    suite: str,
    split: str,
    index: int,
    seed: int,
    correct: str,
    arrangement: str,
) -> Episode:
    """The row of ``item`` with its answer on option ``correct`` in ``arrangement``; the
    template is drawn from ``seed``."""
    letters = LETTERS[len(problem.candidates)]
    mapping = dict(zip(letters, problem.candidates, strict=True))
    rng = np.random.default_rng(seed)
    pins = Pins(item, correct, mapping)
    sem = draw_semantics(problem, suite=suite, split=split, rng=rng, pins=pins)
    layout = arrangement_layout(problem, arrangement)
    return assemble(
        problem,
        sem,
        layout,
        suite=suite,
        split=split,
        index=index,
        seed=seed,
        arrangement=arrangement,
    )


def _balanced(n: int, key: str) -> list[int]:
    """A fixed shuffle of ``n`` zeros and ones (half each; one more zero when n is odd)."""
    digest = hashlib.sha256(f"a2a-balance/{key}".encode()).digest()
    values = np.array([k % 2 for k in range(n)])
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    return [int(v) for v in rng.permutation(values)]


def item_pool(suite: str, split: str) -> tuple[Question, ...]:
    """The items of ``suite``'s source for ``split``, in order (before the reader)."""
    return get_source(get_suite(suite).source).pool(split) or ()


def select_items(
    suite: str,
    split: str,
    problem: Problem,
    reader: Reader | None,
    dropped: dict[str, str] | None,
) -> tuple[list[Question], dict[str, str]]:
    """The items of a table and the dropped ones (id -> reason), in pool order.

    ``dropped`` (from the manifest) replays a former build without reading; otherwise
    ``reader`` decides (None: keep every item).
    """
    want = EVAL_ITEMS if split == "eval" else TRAIN_ITEMS
    kept: list[Question] = []
    drops: dict[str, str] = {}
    for item in item_pool(suite, split):
        if len(kept) >= want:
            break
        if dropped is not None:
            reason = dropped.get(item.qid)
        else:
            reason = reader(problem, item) if reader is not None else None
        if reason:
            drops[item.qid] = reason
        else:
            kept.append(item)
    return kept, drops


def build_rows(
    suite: str,
    split: str,
    items: list[Question],
    problem: Problem,
    *,
    seed_of: Callable[[int], int] | None = None,
    balance: str | None = None,
) -> list[Episode]:
    """The rows of a table made of ``items`` (see the module docstring).

    Args:
        seed_of: row index -> its seed (default: :func:`~rsb_mj.tables.rsb.row_seed` of
            (suite, split, index, 0)); a private draw passes its secret's.
        balance: the key of the fixed shuffles that balance the correct option and the
            arrangement (default ``"{suite}/{split}"``); a private draw passes a secret one.
    """
    name = get_suite(suite).name
    key = f"{name}/{split}" if balance is None else balance
    correct = _balanced(len(items), f"{key}/correct")
    if split == "eval":
        plan = [(k, ARRANGEMENTS[j]) for k in range(len(items)) for j in range(2)]
    else:
        swap = _balanced(len(items), f"{key}/layout")
        plan = [(k, ARRANGEMENTS[swap[k]]) for k in range(len(items))]
    return [
        paired_row(
            problem,
            items[k],
            suite=name,
            split=split,
            index=index,
            seed=row_seed(name, split, index, 0) if seed_of is None else seed_of(index),
            correct="AB"[correct[k]],
            arrangement=arrangement,
        )
        for index, (k, arrangement) in enumerate(plan)
    ]


def redraw_row(problem: Problem, row: Episode, item: Question) -> Episode:
    """Row ``row`` drawn again from its item, seed, correct option and arrangement (what
    the row pins): equal to ``row`` when the row is what the builder made of them."""
    return paired_row(
        problem,
        item,
        suite=row.suite,
        split=row.split,
        index=row.index,
        seed=row.seed,
        correct=row.correct,
        arrangement=str(row.extra.get("layout", "")),
    )


def private_paired(request: DrawRequest) -> tuple[list[Episode], dict[str, str]]:
    """The rows of a private paired eval table and the items dropped (id -> reason): the
    reserve's items in a secret order (a permutation seeded by ``request.key``), the first
    legible ones (``request.reader``) each in both arrangements, the correct option
    balanced by a secret shuffle (``request.key`` again), row ``i``'s seed
    ``request.seeds(i, 0)``. Default: ``EVAL_ITEMS`` items (300 rows, fewer when the reserve
    has fewer items); ``request.rows`` must be even (two rows per item).

    Raises:
        EpisodeError: for an odd or non-positive row count, or more items than the reserve
            has legible ones.
    """
    pool = request.source.pool("eval") or ()
    if request.rows is not None and (request.rows < 2 or request.rows % 2):
        raise EpisodeError(
            f"--rows {request.rows}: a paired table has two rows per item (one per "
            "arrangement); give an even number"
        )
    want = min(EVAL_ITEMS, len(pool)) if request.rows is None else request.rows // 2
    order = np.random.default_rng(int(request.key[:16], 16)).permutation(len(pool))
    kept: list[Question] = []
    drops: dict[str, str] = {}
    for i in order:
        if len(kept) >= want:
            break
        item = pool[int(i)]
        reason = request.reader(request.problem, item) if request.reader is not None else None
        if reason:
            drops[item.qid] = reason
        else:
            kept.append(item)
    if len(kept) < want:
        raise EpisodeError(
            f"{request.suite}: the held-out reserve of source {request.source.name} has "
            f"{len(kept)} legible items of {len(pool)}; a private table of {2 * want} rows "
            f"needs {want} (--rows {2 * len(kept)} at most)"
        )
    rows = build_rows(
        request.suite,
        "eval",
        kept,
        request.problem,
        seed_of=lambda index: request.seeds(index, 0),
        balance=request.key,
    )
    return rows, drops


def paired_tables(
    suites: list[str],
    splits: tuple[str, ...] = ("eval", "train"),
    reader: Reader | None = None,
    log: Callable[[str], None] = print,
) -> list[FrozenTable]:
    """The paired tables of ``suites``, drawn (every item in both plate orders), for
    :func:`rsb_mj.tables.files.write_tables`; their manifest entries list the dropped items.

    Args:
        reader: the legibility check; every item it rejects is dropped, logged with ``log``
            and listed in the manifest (None: keep every item).
    """
    tables = []
    for name in [get_suite(s).name for s in suites]:
        problem = load_suite_problem(get_suite(name))
        for split in splits:
            items, drops = select_items(name, split, problem, reader, None)
            for item_id, reason in drops.items():
                log(f"{name} {split}: dropped {item_id}: {reason}")
            rows = build_rows(name, split, items, problem)
            tables.append(FrozenTable(name, split, rows, entry={"dropped": drops}, dropped=drops))
    return tables


def build_paired(
    suites: list[str],
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    reader: Reader | None = None,
    log: Callable[[str], None] = print,
) -> list[BuildResult]:
    """Build and write the paired tables of ``suites`` (:func:`paired_tables`) and their
    manifest entries (:func:`rsb_mj.tables.files.write_tables`)."""
    return write_tables(out_dir, paired_tables(suites, splits, reader, log))


def check_paired(
    suites: list[Suite],
    folder: Path | None = None,
    complete: bool = True,
    splits: tuple[str, ...] = ("eval", "train"),
) -> list[str]:
    """Verify the paired ``splits`` tables of ``suites``: manifest sha256 and rows, and every
    table rebuilt from its items (without the dropped ones) byte for byte; the first row
    that differs is named ``file:line``. With ``complete``, a table missing from the
    manifest is a problem too. Returns the problems found."""
    folder = episodes_dir() if folder is None else folder
    manifest = read_manifest(folder)
    problems = []
    for suite in suites:
        problem = None
        for split in splits:
            file = table_name(suite.name, split)
            entry = manifest.get(file)
            path = folder / file
            if entry is None:
                if complete:
                    problems.append(f"{file}: not in the manifest ({MANIFEST})")
                continue
            found, stored = read_listed_table(folder, file, entry)
            problems += found
            if stored is None:
                continue
            problem = problem or load_suite_problem(suite)
            dropped = dict(entry.get("dropped", {}))
            items, _ = select_items(suite.name, split, problem, None, dropped)
            fresh = build_rows(suite.name, split, items, problem)
            if dumps(fresh) != path.read_bytes():
                problems.append(_first_difference(file, stored, fresh))
    return problems


def _first_difference(file: str, stored: list[Episode], fresh: list[Episode]) -> str:
    """``file:line: ...`` of the first stored row that is not its item's row."""
    for i, (a, b) in enumerate(zip(stored, fresh, strict=False)):
        if a != b:
            fields = ", ".join(diff_rows(a, b)) or "its bytes"
            return f"{file}:{i + 1}: row {i} differs from its item's row in {fields}"
    i = min(len(stored), len(fresh))
    return f"{file}:{i + 1}: {len(stored)} rows, the items make {len(fresh)}"


__all__ = [
    "ARRANGEMENTS",
    "Reader",
    "arrangement_layout",
    "build_paired",
    "build_rows",
    "check_paired",
    "paired_row",
    "paired_tables",
    "private_paired",
    "redraw_row",
    "select_items",
]
