"""Act2Answer items: counts, disjoint splits, balanced picture features, exact first items."""

from collections import Counter

import pytest

from rsb_mj.a2a.items import (
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
    ids = [i.item_id for i in (*eval_items, *train_items)]
    assert len(ids) == len(set(ids))
    if category in PICTURE_CATEGORIES:  # a pair of pictures stays on one side
        pairs = lambda items: {tuple(sorted((i.answer_spec, i.distractor_spec))) for i in items}  # noqa: E731
        assert not pairs(eval_items) & pairs(train_items)
    else:  # a question text stays on one side
        assert not {i.question for i in eval_items} & {i.question for i in train_items}
    for item in eval_items[:5]:
        assert item.answer != item.distractor
        assert content_image(item.answer_spec).shape == (192, 256, 3)


@pytest.mark.parametrize("category", category_names())
def test_picture_features_do_not_predict_the_answer(category):
    eval_items, _ = item_pool(category)
    cells: dict[str, Counter] = {}
    for item in eval_items:
        hits = probe_hits(item.answer, item.distractor, item.answer_spec, item.distractor_spec)
        for name, hit in hits.items():
            cells.setdefault(name, Counter())[hit] += 1
    for name, cell in cells.items():
        n = cell.total()
        assert abs(cell[True] - n / 2) <= max(3, 0.1 * n), (name, cell)


def test_first_items_are_frozen():
    assert item_pool("COLOR")[0][0].question == "the orange hexagon"
    assert (item_pool("COLOR")[0][0].answer, item_pool("COLOR")[0][0].distractor) == (
        "orange",
        "pink",
    )
    first = item_pool("PHYSICAL")[0][0]
    assert (first.item_id, first.answer, first.distractor) == (
        "a2a-physical-0000",
        "Jupiter",
        "Venus",
    )


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
