"""The held-out reserve of every source (rsb_mj.tables.reserve): its documented sizes, and
that it holds no question of the shipped tables (compared here without the module's own
rule, from the shipped rows themselves)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from rsb_mj.episodes.dedup import normalize
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.act2answer import category_names, item_pool, reserve_items
from rsb_mj.episodes.sources.arithmetic import make_question
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import read_manifest
from rsb_mj.tables.reserve import ReserveSource, reserve_source, shipped_questions_of

#: Held-out questions per fixed source at this commit (docs/private_draws.md, the sources'
#: docstrings). A rebuilt shipped table that changes one must update all three places.
RESERVE_SIZES = {
    "gsm8k": 530,
    "mmlu_pro": 231,
    "a2a_color": 113,
    "a2a_shape": 94,
    "a2a_counting": 229,
    "a2a_size": 400,
    "a2a_spatial": 562,
    "a2a_time": 1361,
    "a2a_physical": 67,
    "a2a_biological": 45,
    "a2a_quantitative": 187,
    "a2a_social": 77,
    "a2a_normative": 15,
    "a2a_cultural": 430,
}
PAGE = Path(__file__).resolve().parents[2] / "docs" / "private_draws.md"


@cache
def shipped_rows() -> tuple:
    """Every row of every shipped table (both splits), verified against the manifest."""
    return tuple(
        row
        for e in read_manifest().values()
        if e.get("family") != "goal"  # goal tables ask no question
        for row in load_table(e["suite"], e["split"])
    )


def test_reserve_sizes_are_the_documented_ones():
    sizes = {name: reserve_source(get_source(name)).size() for name in RESERVE_SIZES}
    assert sizes == RESERVE_SIZES
    assert reserve_source(get_source("arithmetic")).size() is None  # generated: fresh draws
    section = PAGE.read_text(encoding="utf-8")
    for size in RESERVE_SIZES.values():
        assert f"{size:,}" in section


def test_no_reserve_question_is_asked_by_a_shipped_table():
    rows = shipped_rows()
    ids = {r.question_id for r in rows}
    texts = {" ".join(normalize(r.question)) for r in rows}
    for name in ("gsm8k", "mmlu_pro", "a2a_physical", "a2a_color"):
        reserve = reserve_source(get_source(name)).reserve or ()
        assert not ids & {q.qid for q in reserve}, name
        if name != "a2a_color":  # target descriptions repeat by design (next test)
            assert not texts & {" ".join(normalize(q.text)) for q in reserve}, name


def test_act2answer_reserve_takes_what_the_pools_left_and_asks_new_questions():
    for category in category_names():
        pools = [q for pool in item_pool(category) for q in pool]
        reserve = reserve_items(category)
        assert not {q.qid for q in pools} & {q.qid for q in reserve}, category
        # a picture item's question is its target with its two pictures; a text item's, its text
        asked = {(q.text, frozenset(q.displays)) for q in pools}
        assert not asked & {(q.text, frozenset(q.displays)) for q in reserve}, category
        assert len({(q.text, frozenset(q.displays)) for q in reserve}) == len(reserve)
    # COLOR's first reserve item: a picture pair no pool item shows
    first = reserve_items("COLOR")[0]
    assert (first.qid, first.text, first.displays) == (
        "a2a-color-0006",
        "the blue circle",
        ("color:blue:circle", "color:yellow:circle"),
    )
    physical = item_pool("PHYSICAL")
    texts = {q.text for pool in physical for q in pool}
    assert not texts & {q.text for q in reserve_items("PHYSICAL")}


def test_arithmetic_reserve_rejects_a_shipped_question_in_either_order():
    source = reserve_source(get_source("arithmetic"))
    row = load_table("RSB-Math-4", "eval")[1]
    assert row.question_id == "arith-add-87-58"
    assert not source.holds(get_source("arithmetic").get("arith-add-87-58"))
    assert not source.holds(make_question("add", 58, 87))  # commuted: the same question
    assert source.holds(make_question("add", 11, 12)) == (
        "add-11-12" not in source.shipped.keys(get_source("arithmetic"))
    )
    rng = np.random.default_rng(7)
    keys = source.shipped.keys(get_source("arithmetic"))
    drawn = [source.draw("eval", rng) for _ in range(300)]
    assert all(source.question_key(q) not in keys for q in drawn)
    with pytest.raises(EpisodeError, match="a private draw has eval rows only"):
        source.draw("train", rng)


def test_a_listed_reserve_draws_uniformly_from_itself_and_an_empty_one_refuses():
    base = get_source("a2a_color")
    source = reserve_source(base)
    rng = np.random.default_rng(0)
    drawn = {source.draw("eval", rng).qid for _ in range(2000)}
    assert drawn == {q.qid for q in source.reserve}
    # rows that ask every held-out item leave nothing
    full = shipped_questions_of(
        {"question_id": q.qid, "question": q.text, "extra": {"source": base.name}}
        for q in base.held_out()
    )
    empty = ReserveSource(base, full)
    assert empty.size() == 0
    with pytest.raises(EpisodeError, match="source a2a_color: its held-out reserve is empty"):
        empty.draw("eval", rng)
