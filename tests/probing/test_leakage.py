"""Leakage: features that identify an Act2Answer item, and nothing of its answer, look like
knowledge under ungrouped folds (an item's other plate order, with the same answer, sits in
the training fold) and like chance under the probe's grouped folds.

The records are the real A2A-Color eval rows 0..159 (80 items, each in its original and its
swapped plate order, sharing their correct letter); the features are a random 128-d code per
item plus a little noise per episode, drawn independently of the answers.
"""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.worker import error_record
from rsb_mj.probing.dataset import ProbeSet, groups_of
from rsb_mj.probing.probe import ProbeSettings, grouped_folds, probe_set

ROWS, WIDTH, NOISE = 160, 128, 0.3


@pytest.fixture(scope="module")
def item_codes() -> ProbeSet:
    records = tuple(
        error_record(Job("A2A-Color", "eval", i, "p", 1), "infra", "-") for i in range(ROWS)
    )
    rng = np.random.default_rng(29)
    code = {item: rng.normal(size=WIDTH) for item in sorted({r.item for r in records})}
    x = np.stack([code[r.item] + NOISE * rng.normal(size=WIDTH) for r in records])
    labels = np.asarray([r.correct for r in records])
    return ProbeSet(
        label="item-coder",
        suite="A2A-Color",
        choices=2,
        layers=("item",),
        features={"item": x.astype(np.float32)},
        labels=labels,
        groups=groups_of(records),
        correct=labels,
        acted=np.zeros(ROWS, dtype=bool),
        records=records,
        left_out={},
    )


def test_the_two_plate_orders_of_an_item_share_their_answer(item_codes):
    by_item: dict[str, set[tuple[str, str]]] = {}
    for r in item_codes.records:
        by_item.setdefault(r.item, set()).add((r.layout, r.correct))
    assert len(by_item) == ROWS // 2
    for pairs in by_item.values():
        assert {layout for layout, _ in pairs} == {"original", "swapped"}
        assert len({correct for _, correct in pairs}) == 1
    assert len(np.unique(item_codes.groups)) == ROWS // 2  # one group per item


def test_ungrouped_folds_overstate_and_grouped_folds_do_not(item_codes):
    (grouped,) = probe_set(item_codes, ProbeSettings(permutations=0))
    (ungrouped,) = probe_set(item_codes, ProbeSettings(permutations=0, grouped=False))
    assert ungrouped.verdict == "above"
    assert ungrouped.accuracy > 0.8
    assert grouped.verdict == "chance"
    assert grouped.band[0] <= grouped.accuracy <= grouped.band[1]
    assert ungrouped.accuracy - grouped.accuracy > 0.3


def test_grouped_folds_never_split_an_item(item_codes):
    codes = np.unique(item_codes.labels, return_inverse=True)[1]
    folds = grouped_folds(codes, item_codes.groups, 5, seed=0)
    seen = np.concatenate([test for _, test in folds])
    assert sorted(seen.tolist()) == list(range(ROWS))  # every sample tested once
    for train, test in folds:
        assert not set(item_codes.groups[train]) & set(item_codes.groups[test])
        assert len(test) == ROWS // 5
        share = codes[test].mean()
        assert abs(share - codes.mean()) < 0.1  # stratified
