"""The probe's data: per (policy, suite), each layer's feature matrix, labels and folds' groups.

One *sample* is one scored episode whose record names a features archive
(:mod:`rsb_mj.probing.store`). Its label is the *target*:

* ``answer``: the correct option's letter (what the question asks for);
* ``choice``: the letter of the option the policy chose (episodes without a choice are left
  out);
* ``side``: where the correct candidate stood, counted from the robot's left (smallest table
  x first): ``left``/``right`` with two candidates, ``1 of N`` .. ``N of N`` with more.

Its *group* keeps related episodes in one fold (:func:`groups_of`): episodes that share a
question (``question_id``: the two plate orders of an Act2Answer item share their item) or a
row (a row's instruction variants, and its counterfactual twin, which keeps the row's scene
and asks another row's question) are joined, transitively, so that neither the same
question nor the same scene is ever seen in training and scored in testing.

With several stored queries per episode (``--features every:K``) the probe reads one row
(``query``): ``first``, ``last``, or the ``mean`` over the stored queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.probing.store import entry_layers, load_features
from rsb_mj.tables.episode_source import load_episode

#: What a probe predicts.
TARGETS = ("answer", "choice", "side")
#: Which stored query of an episode is read.
QUERIES = ("first", "last", "mean")


@dataclass(frozen=True)
class ProbeSet:
    """The samples of one (row label, suite).

    Attributes:
        label: the row label (the policy, or ``dir:policy`` for several run folders).
        suite: the suite.
        choices: N, options per episode.
        layers: layer names in the policy's (depth) order.
        features: layer name -> float32 (n, D).
        labels: (n,) the target of each sample (strings).
        groups: (n,) int group of each sample (see the module docstring).
        correct: (n,) what a right prediction of the target is worth for *knows but does
            not act*: the correct letter (``answer``, ``choice``) or the correct side.
        acted: (n,) bool: the policy's choice was the correct candidate.
        records: the samples' records, same order.
        left_out: episodes with features that were left out, and why (count by reason).
    """

    label: str
    suite: str
    choices: int
    layers: tuple[str, ...]
    features: dict[str, np.ndarray]
    labels: np.ndarray
    groups: np.ndarray
    correct: np.ndarray
    acted: np.ndarray
    records: tuple[EpisodeRecord, ...]
    left_out: dict[str, int]

    @property
    def n(self) -> int:
        """Number of samples."""
        return len(self.labels)


def groups_of(records: Sequence[EpisodeRecord]) -> np.ndarray:
    """One group id per record: records that share a question or a row are joined,
    transitively (union-find over ``question``/``item`` keys and ``(split, index)`` rows)."""
    parent: dict[tuple, tuple] = {}

    def find(key: tuple) -> tuple:
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def union(a: tuple, b: tuple) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    for r in records:
        row = ("row", r.suite, r.split, r.index)
        union(row, ("question", r.suite, r.question_id))
        if r.item:
            union(row, ("item", r.suite, r.item))
    roots: dict[tuple, int] = {}
    out = []
    for r in records:
        root = find(("row", r.suite, r.split, r.index))
        out.append(roots.setdefault(root, len(roots)))
    return np.asarray(out, dtype=np.int64)


def side_of(record: EpisodeRecord) -> str:
    """Where the correct candidate of ``record``'s episode stood (see the module docstring);
    read from its frozen row (the instruction variants and twins keep the row's layout)."""
    episode = load_episode(record.suite, record.split, record.index)
    xs = sorted(episode.layout, key=lambda c: (episode.layout[c].x, c))
    rank = xs.index(record.target)
    if len(xs) == 2:
        return ("left", "right")[rank]
    return f"{rank + 1} of {len(xs)}"


def _label(record: EpisodeRecord, target: str) -> tuple[str | None, str]:
    """(the target's label or None to leave the record out, the right prediction)."""
    if target == "answer":
        return record.correct, record.correct
    if target == "choice":
        return record.chosen_option, record.correct
    side = side_of(record)
    return side, side


def _row(layer: np.ndarray, query: str) -> np.ndarray:
    if query == "first":
        return layer[0]
    if query == "last":
        return layer[-1]
    return layer.mean(axis=0)


def load_probe_sets(
    dirs: Sequence[Path],
    target: str = "answer",
    *,
    variant: str = "original",
    query: str = "first",
) -> list[ProbeSet]:
    """The probe sets of run folders, one per (row label, suite), in first-seen order.

    Args:
        dirs: run directories made with ``rsb eval --features``.
        target: one of :data:`TARGETS`.
        variant: the records' variant probed (``original``; ``all`` for every variant,
            grouped with their rows).
        query: one of :data:`QUERIES`.

    Raises:
        EvalError: for an unknown target or query; for folders without any episode with
            features (naming them); for episodes of one (policy, suite) whose layers differ;
            for a missing or damaged features archive.
    """
    if target not in TARGETS:
        raise EvalError(f"--target {target!r}; valid choices: {', '.join(TARGETS)}")
    if query not in QUERIES:
        raise EvalError(f"--query {query!r}; valid choices: {', '.join(QUERIES)}")
    buckets: dict[tuple[str, str], list[tuple[Path, EpisodeRecord]]] = {}
    empty = []
    for d in dirs:
        d = Path(d)
        records = RunFolder(d).records()
        kept = [
            r
            for r in records
            if not r.is_error
            and r.features
            and r.features.get("file")
            and (variant == "all" or r.variant == variant)
        ]
        if not kept:
            empty.append(str(d))
        for r in kept:
            label = r.policy if len(dirs) == 1 else f"{d.name}:{r.policy}"
            buckets.setdefault((label, r.suite), []).append((d, r))
    if empty:
        raise EvalError(
            f"{', '.join(empty)}: no scored {variant if variant != 'all' else ''} episode "
            "with features; run rsb eval --features first (or choice, every:K) with a policy "
            "that hands them over (see rsb_mj.policies.features)"
        )
    return [
        _probe_set(label, suite, items, target, query) for (label, suite), items in buckets.items()
    ]


def _probe_set(
    label: str,
    suite: str,
    items: list[tuple[Path, EpisodeRecord]],
    target: str,
    query: str,
) -> ProbeSet:
    first_dir, first = items[0]
    layout = [name for name, _ in entry_layers(first.features or {})]
    widths = {name: shape[1] for name, shape in entry_layers(first.features or {})}
    rows: dict[str, list[np.ndarray]] = {name: [] for name in layout}
    labels, correct, acted, kept = [], [], [], []
    left_out: dict[str, int] = {}
    for d, r in items:
        said = entry_layers(r.features or {})
        if [n for n, _ in said] != layout or any(widths[n] != s[1] for n, s in said):
            raise EvalError(
                f"{RunFolder(d).records_file}: {r.policy} on {suite} row {r.index} has layers "
                f"{[(n, s[1]) for n, s in said][:3]}..., row {first.index} of "
                f"{first_dir} {[(n, widths[n]) for n in layout][:3]}...; a probe compares "
                "one layout"
            )
        value, right = _label(r, target)
        if value is None:
            left_out["no choice"] = left_out.get("no choice", 0) + 1
            continue
        stored = load_features(d, r.features or {})
        for name in layout:
            rows[name].append(_row(stored[name], query))
        labels.append(value)
        correct.append(right)
        acted.append(bool(r.correct_choice))
        kept.append(r)
    if not kept:
        raise EvalError(
            f"{label} on {suite}: none of its {len(items)} episodes with features has a "
            f"{target} label (left out: {left_out})"
        )
    return ProbeSet(
        label=label,
        suite=suite,
        choices=first.choices,
        layers=tuple(layout),
        features={name: np.stack(rows[name]) for name in layout},
        labels=np.asarray(labels),
        groups=groups_of(kept),
        correct=np.asarray(correct),
        acted=np.asarray(acted, dtype=bool),
        records=tuple(kept),
        left_out=left_out,
    )


__all__ = ["QUERIES", "TARGETS", "ProbeSet", "groups_of", "load_probe_sets", "side_of"]
