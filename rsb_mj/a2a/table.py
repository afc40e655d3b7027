"""Frozen Act2Answer tables: ``tasks/episodes/A2A-<Category>.{eval,train}.jsonl``.

Beside the RSB tables, with their own manifest ``a2a_manifest.json`` (row count, sha256 and
the items dropped by the legibility check with the reason, per table). Rows:

* **eval**: the first :data:`~rsb_mj.a2a.items.EVAL_ITEMS` legible eval items of the
  category, each in both plate orders: rows ``2k`` (``original``) and ``2k + 1``
  (``swapped``) are item ``k``; the correct option (A or B) is balanced over items (a fixed
  shuffle of half A, half B), so the correct plate is on the left in exactly half the rows
  of each layout and of the table.
* **train**: the first :data:`~rsb_mj.a2a.items.TRAIN_ITEMS` legible train items, one row
  each, correct option and layout balanced the same way.

Row ``i``'s seed is :func:`rsb_mj.episodes.table.row_seed` of (suite, split, i, 0); it
draws the instruction template only. ``rsb episodes check`` rebuilds every table from the
items (dropping the items the manifest lists) and compares bytes; it does not render.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.a2a.episodes import LAYOUTS, make_episode
from rsb_mj.a2a.items import EVAL_ITEMS, TRAIN_ITEMS, Item, item_pool
from rsb_mj.atomic import atomic_write_bytes, atomic_write_text
from rsb_mj.episode import Episode
from rsb_mj.episodes.table import dumps, episodes_dir, read_table, row_seed, table_name
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.ast import Problem
from rsb_mj.suites import A2A_SUITES, get_suite

#: Manifest of the A2A tables (beside ``manifest.json`` of the RSB tables).
A2A_MANIFEST = "a2a_manifest.json"
#: ``reader(problem, item) -> None`` (legible) or the reason an item is dropped.
Reader = Callable[[Problem, Item], str | None]


def _balanced(n: int, key: str) -> list[int]:
    """A fixed shuffle of ``n`` zeros and ones (half each; one more zero when n is odd)."""
    digest = hashlib.sha256(f"a2a-balance/{key}".encode()).digest()
    values = np.array([k % 2 for k in range(n)])
    return [
        int(v) for v in np.random.default_rng(int.from_bytes(digest[:8], "big")).permutation(values)
    ]


def category_of(suite: str) -> str:
    """The category of an A2A suite (``A2A-Color`` -> ``COLOR``).

    Raises:
        EpisodeError: for a suite that is not an A2A one.
    """
    s = get_suite(suite)
    if s.name not in A2A_SUITES:
        raise EpisodeError(f"{suite} is not an Act2Answer suite; valid: {', '.join(A2A_SUITES)}")
    return s.name.removeprefix("A2A-").upper()


def load_problem(suite: str) -> Problem:
    """The parsed task file of an A2A suite."""
    from rsb_mj.lang import load_task

    return load_task(get_suite(suite).path)


def select_items(
    suite: str, split: str, problem: Problem, reader: Reader | None, dropped: dict[str, str] | None
) -> tuple[list[Item], dict[str, str]]:
    """The items of a table and the dropped ones (id -> reason), in pool order.

    ``dropped`` (from a manifest) replays a former build without reading; otherwise
    ``reader`` decides (None: keep every item).
    """
    eval_items, train_items = item_pool(category_of(suite))
    pool, want = (eval_items, EVAL_ITEMS) if split == "eval" else (train_items, TRAIN_ITEMS)
    kept: list[Item] = []
    drops: dict[str, str] = {}
    for item in pool:
        if len(kept) >= want:
            break
        if dropped is not None:
            reason = dropped.get(item.item_id)
        else:
            reason = reader(problem, item) if reader is not None else None
        if reason:
            drops[item.item_id] = reason
        else:
            kept.append(item)
    return kept, drops


def build_rows(suite: str, split: str, items: list[Item], problem: Problem) -> list[Episode]:
    """The rows of a table made of ``items`` (see the module docstring)."""
    name = get_suite(suite).name
    correct = _balanced(len(items), f"{name}/{split}/correct")
    out: list[Episode] = []
    if split == "eval":
        plan = [(k, LAYOUTS[j]) for k in range(len(items)) for j in range(2)]
    else:
        swap = _balanced(len(items), f"{name}/{split}/layout")
        plan = [(k, LAYOUTS[swap[k]]) for k in range(len(items))]
    for index, (k, layout) in enumerate(plan):
        out.append(
            make_episode(
                problem,
                items[k],
                suite=name,
                split=split,
                index=index,
                seed=row_seed(name, split, index, 0),
                correct="AB"[correct[k]],
                layout=layout,
            )
        )
    return out


@dataclass(frozen=True)
class A2ABuild:
    """One A2A table written by :func:`build_a2a`."""

    suite: str
    split: str
    path: Path
    rows: int
    sha256: str
    dropped: dict[str, str]
    changed: bool


def read_a2a_manifest(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """File name -> ``{"suite", "split", "rows", "sha256", "dropped"}`` ({} when none)."""
    path = (episodes_dir() if folder is None else folder) / A2A_MANIFEST
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["tables"])


def build_a2a(
    suites: list[str] | None = None,
    splits: tuple[str, ...] = ("eval", "train"),
    out_dir: Path | None = None,
    reader: Reader | None = None,
    log: Callable[[str], None] = print,
) -> list[A2ABuild]:
    """Build and write the A2A tables of ``suites`` (default: all twelve) and their manifest.

    Args:
        reader: the legibility check (default :func:`rsb_mj.a2a.legibility.plate_reader`);
            every item it rejects is dropped, logged with ``log`` and listed in the manifest.
    """
    if reader is None:
        from rsb_mj.a2a.legibility import plate_reader

        reader = plate_reader
    out_dir = episodes_dir() if out_dir is None else out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    names = [get_suite(s).name for s in suites] if suites else list(A2A_SUITES)
    manifest = read_a2a_manifest(out_dir)
    results = []
    for name in names:
        problem = load_problem(name)
        for split in splits:
            items, drops = select_items(name, split, problem, reader, None)
            for item_id, reason in drops.items():
                log(f"{name} {split}: dropped {item_id}: {reason}")
            data = dumps(build_rows(name, split, items, problem))
            path = out_dir / table_name(name, split)
            changed = not path.is_file() or path.read_bytes() != data
            if changed:
                atomic_write_bytes(path, data)
            digest = hashlib.sha256(data).hexdigest()
            rows = data.count(b"\n")
            manifest[path.name] = {
                "suite": name,
                "split": split,
                "rows": rows,
                "sha256": digest,
                "dropped": drops,
            }
            results.append(A2ABuild(name, split, path, rows, digest, drops, changed))
    body = {"format": 1, "tables": dict(sorted(manifest.items()))}
    atomic_write_text(out_dir / A2A_MANIFEST, json.dumps(body, indent=2) + "\n")
    return results


def check_a2a(suites: list[str] | None = None, folder: Path | None = None) -> list[str]:
    """Verify the A2A tables: manifest sha256 and rows, and every table rebuilt from its
    items (without the dropped ones) byte for byte. Returns the problems found."""
    folder = episodes_dir() if folder is None else folder
    manifest = read_a2a_manifest(folder)
    names = [get_suite(s).name for s in suites] if suites else list(A2A_SUITES)
    problems = []
    for name in names:
        problem = None
        for split in ("eval", "train"):
            file = table_name(name, split)
            entry = manifest.get(file)
            path = folder / file
            if entry is None:
                problems.append(f"{file}: not in {A2A_MANIFEST}")
                continue
            if not path.is_file():
                problems.append(f"{file}: file missing")
                continue
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest != entry["sha256"]:
                problems.append(
                    f"{file}: sha256 {digest[:12]} differs from manifest {entry['sha256'][:12]}"
                )
            problem = problem or load_problem(name)
            items, _ = select_items(name, split, problem, None, dict(entry.get("dropped", {})))
            fresh = build_rows(name, split, items, problem)
            stored = read_table(path)
            if len(stored) != entry["rows"]:
                problems.append(f"{file}: {len(stored)} rows, manifest says {entry['rows']}")
            if dumps(fresh) != data:
                bad = [
                    i for i, (a, b) in enumerate(zip(stored, fresh, strict=False)) if a != b
                ] or [min(len(stored), len(fresh))]
                problems.append(f"{file}: rows differ from the items, first at row {bad[0]}")
    return problems


__all__ = [
    "A2A_MANIFEST",
    "A2ABuild",
    "build_a2a",
    "build_rows",
    "category_of",
    "check_a2a",
    "read_a2a_manifest",
    "select_items",
]
