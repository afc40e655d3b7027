"""Fixtures for scene tests: hand-built task problems (independent of the parser)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE, TEN_CHOICE_COLOR
from rsb_mj.episodes.episode import Episode
from rsb_mj.lang.ast import Problem, Rect, Region, TypedName
from rsb_mj.lang.blocks import Layout, Question
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.expr import Atom, Name
from rsb_mj.lang.layout import sample_layout
from rsb_mj.tables.paired import arrangement_layout

LETTERS10 = "abcdefghik"


def make_problem(
    n: int = 4,
    category: str = "letter_block",
    candidates: tuple[float, float, float, float] = (-0.25, -0.1, 0.25, 0.02),
    zone: tuple[float, float, float, float] = (-0.06, 0.1, 0.06, 0.22),
    min_spacing: float = 0.07,
) -> Problem:
    """A task like tasks/rsb_math_4.bddl with ``n`` candidates of ``category``."""
    names = [f"obj_{c}" for c in LETTERS10[:n]]
    return Problem(
        name="test",
        domain="rsb",
        question=Question("arithmetic", n),
        regions=(
            Region("candidates", "table", (Rect(*candidates),)),
            Region("answer_zone", "table", (Rect(*zone),), rgba=(0.5, 0.5, 0.5, 1.0)),
        ),
        fixtures=(TypedName("table", "table"),),
        objects=tuple(TypedName(x, category) for x in names),
        candidate_names=tuple(names),
        init=tuple(Atom("On", (Name(x), Name("table_candidates"))) for x in names),
        layout=Layout(min_spacing, (-0.3, 0.3)),
        path="test.bddl",
    )


@pytest.fixture
def problem_factory():
    """The :func:`make_problem` helper as a fixture."""
    return make_problem


def make_episode(problem: Problem, seed: int = 0) -> Episode:
    """An episode of ``problem`` built without the episode sampler's semantics: options in
    order, candidate ``i`` stands for letter ``i``, distinct colors for 4 choices (answer
    plates: in their slots, printing the options); the layout and any non-candidate objects'
    placements drawn from ``seed``."""
    from rsb_mj.episodes.sampler import draw_distractors

    rng = np.random.default_rng(seed)
    names = problem.candidates
    letters = LETTERS[len(names)]
    extra = {}
    if RSB_CATEGORIES[problem.category_of(names[0])].shows_answer:
        layout, distractors = arrangement_layout(problem, "original"), {}  # plates in slots
        extra["plates"] = {x: f"text:{i}" for i, x in enumerate(letters)}  # the options
    else:
        layout = sample_layout(problem, rng)
        distractors = draw_distractors(problem, rng, layout)
    n = len(names)  # distinct palette colors up to 8 choices (red, green, blue, yellow, ...)
    colors = list(PALETTE)[:n] if n <= len(PALETTE) else [TEN_CHOICE_COLOR] * n
    return Episode.bound(
        suite="",
        split="eval",
        index=0,
        seed=seed,
        task="test.bddl",
        question_id="test-0",
        question="what is 1 plus 1?",
        options=tuple(str(i) for i in range(len(names))),
        correct="B",
        mapping=dict(zip(letters, names, strict=True)),
        colors=dict(zip(names, colors, strict=True)),
        layout=layout,
        template_id="test",
        instruction="what is 1 plus 1?",
        extra=extra,
        distractors=distractors,
    )


@pytest.fixture
def episode_factory():
    """The :func:`make_episode` helper as a fixture."""
    return make_episode
