"""The Act2Answer question sources: counts, disjoint splits, balanced picture features, exact
first items, the source interface (pools, ids, extras)."""

from collections import Counter

import pytest

from rsb_mj.episodes.sources import get_source, source_of
from rsb_mj.episodes.sources.act2answer import (
    EVAL_ITEMS,
    PICTURE_CATEGORIES,
    TRAIN_ITEMS,
    category_names,
    item_pool,
    probe_hits,
)
from rsb_mj.errors import EpisodeError
from rsb_mj.scene.pictures import content_image


def test_twelve_categories_with_the_papers_names():
    assert category_names() == (
        "COLOR",
        "SHAPE",
        "COUNTING",
        "SIZE",
        "SPATIAL",
        "TIME",
        "PHYSICAL",
        "BIOLOGICAL",
        "QUANTITATIVE",
        "SOCIAL",
        "NORMATIVE",
        "CULTURAL",
    )


@pytest.mark.parametrize("category", category_names())
def test_pools_are_big_enough_disjoint_and_drawable(category):
    eval_items, train_items = item_pool(category)
    assert len(eval_items) >= EVAL_ITEMS + 10
    assert len(train_items) >= (20 if category == "NORMATIVE" else TRAIN_ITEMS)
    ids = [i.qid for i in (*eval_items, *train_items)]
    assert len(ids) == len(set(ids))
    if category in PICTURE_CATEGORIES:  # a pair of pictures stays on one side
        pairs = lambda items: {tuple(sorted(i.displays)) for i in items}  # noqa: E731
        assert not pairs(eval_items) & pairs(train_items)
        assert {i.form for i in eval_items} == {"target"}
    else:  # a question text stays on one side
        assert not {i.text for i in eval_items} & {i.text for i in train_items}
        assert {i.form for i in eval_items} == {"question"}
    for item in eval_items[:5]:
        assert len(item.distractors) == 1 and item.answer != item.distractors[0]
        assert item.display_of(item.answer) == item.displays[0]
        assert content_image(item.displays[0]).shape == (192, 256, 3)


@pytest.mark.parametrize("category", category_names())
def test_picture_features_do_not_predict_the_answer(category):
    eval_items, _ = item_pool(category)
    cells: dict[str, Counter] = {}
    for item in eval_items:
        hits = probe_hits(item.answer, item.distractors[0], *item.displays)
        for name, hit in hits.items():
            cells.setdefault(name, Counter())[hit] += 1
    for name, cell in cells.items():
        n = cell.total()
        assert abs(cell[True] - n / 2) <= max(3, 0.1 * n), (name, cell)


def test_first_items_are_frozen():
    first = item_pool("COLOR")[0][0]
    assert (first.text, first.answer, first.distractors) == (
        "the orange hexagon",
        "orange",
        ("pink",),
    )
    assert (first.subject, first.displays) == (
        "COLOR",
        ("color:orange:hexagon", "color:pink:hexagon"),
    )
    first = item_pool("PHYSICAL")[0][0]
    assert (first.qid, first.answer, first.distractors) == (
        "a2a-physical-0000",
        "Jupiter",
        ("Venus",),
    )
    assert first.displays == ("text:Jupiter", "text:Venus")


def test_each_category_is_a_question_source_of_two_choices():
    source = get_source("a2a_time")
    eval_pool, train_pool = item_pool("TIME")
    assert (source.pool("eval"), source.pool("train")) == (eval_pool, train_pool)
    assert source.choices == (2,)
    item = train_pool[3]
    assert source.get(item.qid) == item and source.split_of(item.qid) == "train"
    assert source_of(item.qid) is source
    assert source.episode_extra(item) == {"category": "TIME", "item": item.qid}
    with pytest.raises(EpisodeError, match=r"cannot make 4 options; valid choices: 2"):
        source.check_choices(4)
    with pytest.raises(EpisodeError, match=r"unknown a2a_time item id 'a2a-time-9999'"):
        source.get("a2a-time-9999")


def test_probes_name_what_would_pick_the_answer():
    assert probe_hits("5", "12", "count:5:red", "count:9:red") == {
        "longer": False,
        "alpha_first": False,
        "larger": False,
    }
    assert probe_hits("bigger star", "smaller star", "size:0.40:star:red", "size:0.16:star:red")[
        "bigger_picture"
    ]


def test_unknown_category_lists_the_valid_ones():
    with pytest.raises(
        EpisodeError, match=r"unknown Act2Answer category 'SMELL'; valid choices: COLOR, "
    ):
        item_pool("SMELL")
