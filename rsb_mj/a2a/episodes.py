"""Act2Answer items as episodes: plates, layouts (original and swapped), instructions.

An A2A episode is an :class:`rsb_mj.episode.Episode` with two options (letters A, B): the
candidates are the answer plates (``mapping`` letter -> plate), ``options`` the two answers
as words, ``layout`` the plates' poses; ``extra`` carries what is A2A-specific:

* ``category``: e.g. ``"COLOR"``; ``item``: the item id (also ``question_id``);
* ``layout``: ``"original"`` (plates where the task file's ``:init`` regions put them) or
  ``"swapped"`` (the plates' positions exchanged; with more plates, reversed);
* ``plates``: letter -> picture spec (:mod:`rsb_mj.scene.pictures`) the plate shows;
* ``source``: the A2A question source.

Instructions come from :data:`TEMPLATES` (``seen`` for train, ``unseen`` for eval, as the
RSB suites), drawn with the row's seed; the question or target phrase is the item's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rsb_mj.a2a.items import PICTURE_CATEGORIES, Item, item_pool
from rsb_mj.colors import TEN_CHOICE_COLOR
from rsb_mj.episode import Episode, Pose2D
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.a2a import A2A_SOURCES
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.task import task_of

#: Plate orders an eval item runs in.
LAYOUTS = ("original", "swapped")
#: Template set -> picture templates ({T}: the target phrase) and text templates ({Q}).
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "seen": {
        "picture": (
            "put the cube on {T}.",
            "place the cube on {T}.",
            "move the cube onto {T}.",
        ),
        "text": (
            "{Q} put the cube on the plate with the correct answer.",
            "{Q} place the cube on the right answer.",
            "answer by moving the cube onto the correct plate. {Q}",
        ),
    },
    "unseen": {
        "picture": (
            "pick up the cube and put it on {T}.",
            "set the cube down on {T}.",
            "the cube belongs on {T}. place it there.",
        ),
        "text": (
            "{Q} pick up the cube and set it on the plate that answers this.",
            "{Q} show your answer by placing the cube on its plate.",
            "question: {Q} put the cube on the answer.",
        ),
    },
}


def category_of_source(source: str) -> str:
    """The category of an A2A source id (``a2a_color`` -> ``COLOR``).

    Raises:
        EpisodeError: for a source that is not an A2A one.
    """
    for category, name in A2A_SOURCES.items():
        if name == source:
            return category
    raise EpisodeError(
        f"unknown Act2Answer source {source!r}; valid choices: {', '.join(A2A_SOURCES.values())}"
    )


def plate_slots(problem: Problem) -> dict[str, Pose2D]:
    """The plates' poses of the original layout: the centre of each plate's ``:init`` region
    (table frame, metres; yaw 0)."""
    out = {}
    for plate in problem.candidates:
        region = problem.region(problem.placement_of(plate))
        r = region.ranges[0]
        out[plate] = Pose2D(round((r.x0 + r.x1) / 2, 6), round((r.y0 + r.y1) / 2, 6), 0.0)
    return out


def layout_for(problem: Problem, layout: str) -> dict[str, Pose2D]:
    """The plates' poses of ``layout`` (``original`` or ``swapped``).

    Raises:
        EpisodeError: for another layout name.
    """
    slots = plate_slots(problem)
    if layout == "original":
        return slots
    if layout == "swapped":
        plates = list(slots)
        return dict(zip(plates, [slots[p] for p in reversed(plates)], strict=True))
    raise EpisodeError(f"unknown layout {layout!r}; valid choices: {', '.join(LAYOUTS)}")


def instruction_for(item: Item, template: str) -> str:
    """The instruction of ``item`` with ``template`` (whitespace collapsed)."""
    if item.category in PICTURE_CATEGORIES:
        text = template.replace("{T}", item.question)
    else:
        text = template.replace("{Q}", item.question)
    return " ".join(text.split())


def make_episode(
    problem: Problem,
    item: Item,
    *,
    suite: str,
    split: str,
    index: int,
    seed: int,
    correct: str,
    layout: str,
) -> Episode:
    """The episode of ``item`` with the correct answer on option ``correct`` (``"A"`` or
    ``"B"``) in ``layout``; the template is drawn from ``seed``."""
    plates = tuple(problem.candidates)
    if len(plates) != 2:
        raise EpisodeError(f"{problem.path}: Act2Answer items need 2 plates, got {len(plates)}")
    letters = ("A", "B")
    if correct not in letters:
        raise EpisodeError(f"correct option {correct!r}; valid choices: A, B")
    wrong = "B" if correct == "A" else "A"
    texts = {correct: item.answer, wrong: item.distractor}
    specs = {correct: item.answer_spec, wrong: item.distractor_spec}
    template_set = "unseen" if split == "eval" else "seen"
    kind = "picture" if item.category in PICTURE_CATEGORIES else "text"
    choices = TEMPLATES[template_set][kind]
    t = int(np.random.default_rng(seed).integers(len(choices)))
    return Episode(
        suite=suite,
        split=split,
        index=int(index),
        seed=int(seed),
        task=Path(str(problem.path)).name,
        question_id=item.item_id,
        question=item.question,
        options=(texts["A"], texts["B"]),
        correct=correct,
        mapping=dict(zip(letters, plates, strict=True)),
        colors={p: TEN_CHOICE_COLOR for p in plates},
        layout=layout_for(problem, layout),
        template_id=f"a2a-{template_set}-{kind}-{t:02d}",
        instruction=instruction_for(item, choices[t]),
        extra={
            "source": A2A_SOURCES[item.category],
            "category": item.category,
            "item": item.item_id,
            "layout": layout,
            "plates": {"A": specs["A"], "B": specs["B"]},
        },
    )


def sample_a2a_episode(
    problem: Problem, *, suite: str, split: str, index: int, seed: int
) -> Episode:
    """A free draw (``RsbEnv.reset()`` without a table row): an item of the split's pool,
    the correct option and the layout, all from ``numpy.random.default_rng(seed)``."""
    category = category_of_source(task_of(problem).source.name)
    eval_items, train_items = item_pool(category)
    pool = eval_items if split == "eval" else train_items
    rng = np.random.default_rng(seed)
    item = pool[int(rng.integers(len(pool)))]
    correct = ("A", "B")[int(rng.integers(2))]
    layout = LAYOUTS[int(rng.integers(2))]
    return make_episode(
        problem,
        item,
        suite=suite,
        split=split,
        index=index,
        seed=seed,
        correct=correct,
        layout=layout,
    )


__all__ = [
    "LAYOUTS",
    "TEMPLATES",
    "category_of_source",
    "layout_for",
    "make_episode",
    "plate_slots",
    "sample_a2a_episode",
]
