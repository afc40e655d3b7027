"""Draw one episode of a task: question, options, mapping, colors, template, layout.

Every task family takes the same steps. Every draw comes from
``numpy.random.default_rng(seed)`` in this fixed order:

1. the question (one draw for a fixed pool; rejection for generated eval arithmetic);
2. the options and the correct option (:mod:`rsb_mj.episodes.options`);
3. the option -> candidate mapping (a permutation, for ``(:options (:map shuffle))``);
4. the candidate colors (up to 8 choices: distinct palette colors; 9 and 10 choices, and
   candidates that show their answers: all :data:`rsb_mj.colors.TEN_CHOICE_COLOR`, no draw;
   see :mod:`rsb_mj.choices`);
5. the instruction template (candidates that show their answers, e.g. Act2Answer's answer
   plates: the templates of the question's form, ``{Q}`` only, :mod:`.templates`);
6. the layout, from :func:`rsb_mj.lang.layout.sample_layout`, so a change of the layout
   sampler changes only the layouts of frozen episodes, never their semantics;
7. only for task files with non-candidate objects (the L1/L2 suites): their poses
   (:func:`rsb_mj.lang.layout.sample_distractors`), then one palette color each. Nothing is
   drawn for the others, so a level's episode has its base suite's question, mapping, colors,
   template and candidate layout for the same seed.

A designed table row (:mod:`rsb_mj.tables.paired`) fixes the question, the correct option
and the mapping in advance (:class:`Pins`) and its layout: nothing is drawn for them, so its
seed draws the template first. ``extra`` holds ``source``, what the source adds
(:meth:`~rsb_mj.episodes.sources.base.QuestionSource.episode_extra`; Act2Answer:
``category``, ``item``), the design's ``layout`` (``original`` / ``swapped``) and, for
candidates that show their answers, ``plates``: option letter -> the picture spec it shows.

Positions are rounded to 1 micrometre and yaw to 1 microradian, so an episode and its JSON row
are the same value on every platform.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rsb_mj.choices import LETTERS, style
from rsb_mj.colors import PALETTE, TEN_CHOICE_COLOR
from rsb_mj.episodes.episode import Distractor, Episode
from rsb_mj.episodes.instructions import (
    TaskLike,
    as_task,
    display_text,
    render_instruction,
    shows_answers,
    templates_for,
)
from rsb_mj.episodes.options import draw_options, pinned_options
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources import QuestionSource, check_split, resolve_source
from rsb_mj.episodes.templates import Template
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.layout import Pose2D, sample_distractors, sample_layout
from rsb_mj.lang.task import Task
from rsb_mj.suites import ALL_SUITES

#: Decimal places kept for positions [m] and yaw [rad].
LAYOUT_DECIMALS = 6


@dataclass(frozen=True)
class Semantics:
    """Everything of an episode except its layout (what the instruction is made of).

    Attributes:
        source_extra: what the source adds to ``extra`` (``category``, ``item``).
        shown: option letter -> picture spec, for candidates that show their answers.
    """

    question: Question
    options: tuple[str, ...]
    correct: str
    mapping: dict[str, str]
    colors: dict[str, str]
    template: Template
    instruction: str
    source: str
    source_extra: dict[str, str] = dataclasses.field(default_factory=dict)
    shown: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Pins:
    """What a designed table row fixes before its draw (:mod:`rsb_mj.tables.paired`).

    Attributes:
        question: the question (an item of the task's source).
        correct: the letter of the correct option; the other options are the question's
            distractors in order (:func:`~rsb_mj.episodes.options.pinned_options`).
        mapping: option letter -> candidate.
    """

    question: Question
    correct: str
    mapping: dict[str, str]


def draw_semantics(
    problem: TaskLike,
    *,
    suite: str,
    split: str,
    rng: np.random.Generator,
    templates: str | None = None,
    pins: Pins | None = None,
    source: QuestionSource | None = None,
) -> Semantics:
    """Steps 1-5 of the draw order (see the module docstring); with ``pins``, steps 1-3 are
    the pinned question, correct option and mapping (no draw); ``source`` replaces the
    task's own (a private draw's held-out reserve, :mod:`rsb_mj.tables.reserve`).

    Raises:
        EpisodeError: when the task file has no question block, names an unknown source or
            a choice count the source cannot serve, has a candidate count that differs
            from its choice count, or shows answers its source has no pictures for.
    """
    check_split(split)
    task = as_task(problem)
    asked = task.asked()
    path = task.path
    choices = asked.choices
    source = resolve_source(asked.source) if source is None else source
    source.check_choices(choices)
    candidates = task.candidates
    if len(candidates) != choices:
        raise EpisodeError(
            f"{path}: {len(candidates)} candidates for {choices} choices; "
            "declare exactly one candidate per option"
        )
    if suite and suite in ALL_SUITES and ALL_SUITES[suite].choices != choices:
        raise EpisodeError(f"{path}: suite {suite} has {ALL_SUITES[suite].choices} choices")
    letters = LETTERS[choices]

    if pins is None:
        question = source.draw(split, rng)
        options, correct = draw_options(question, choices, rng)
        mapping = _draw_mapping(task, letters, candidates, rng)
    else:
        question, correct, mapping = pins.question, pins.correct, dict(pins.mapping)
        options = pinned_options(question, correct, choices)
    answers = shows_answers(task)
    nouns = tuple(asked.noun(c) for c in candidates)
    colors = _draw_colors(candidates, question, options, rng, nouns, shared=answers)
    template_list = templates_for(task, split, templates, question.form)
    template = template_list[int(rng.integers(len(template_list)))]
    text = display_text(question.text) if question.form == "question" else question.text
    instruction = render_instruction(task, template, text, options, mapping, colors)
    if text != question.text:
        question = dataclasses.replace(question, text=text)
    return Semantics(
        question,
        options,
        correct,
        mapping,
        colors,
        template,
        instruction,
        source.name,
        source.episode_extra(question),
        _shown(task, question, options, letters) if answers else {},
    )


def _shown(
    task: Task, question: Question, options: tuple[str, ...], letters: tuple[str, ...]
) -> dict[str, str]:
    """Option letter -> the picture spec its candidate shows.

    Raises:
        EpisodeError: when the question has no pictures of its answers.
    """
    if not question.displays:
        raise EpisodeError(
            f"{task.path}: the candidates show their answers, but question {question.qid} "
            f"of source {task.asked().source.name!r} has no pictures of them"
        )
    return {letter: str(question.display_of(o)) for letter, o in zip(letters, options, strict=True)}


def _draw_mapping(
    task: Task, letters: tuple[str, ...], candidates: tuple[str, ...], rng: np.random.Generator
) -> dict[str, str]:
    pairs_fixed = task.asked().option_pairs
    if pairs_fixed is None:
        order = rng.permutation(len(candidates))
        return {letter: candidates[int(i)] for letter, i in zip(letters, order, strict=True)}
    pairs = dict(pairs_fixed)
    if sorted(pairs) != sorted(letters) or sorted(pairs.values()) != sorted(candidates):
        raise EpisodeError(
            f"{task.path}: fixed option map {pairs} must map the "
            f"letters {', '.join(letters)} one-to-one onto the candidates {', '.join(candidates)}"
        )
    return {letter: pairs[letter] for letter in letters}


def _draw_colors(
    candidates: tuple[str, ...],
    question: Question,
    options: tuple[str, ...],
    rng: np.random.Generator,
    nouns: tuple[str, ...] = (),
    shared: bool = False,
) -> dict[str, str]:
    """Each candidate's color; one shared color, with no draw, in the ``letters`` style and
    for candidates that show their answers (``shared``)."""
    if shared or style(len(candidates)) == "letters":
        return {c: TEN_CHOICE_COLOR for c in candidates}
    # Colors named in the question, an option or a candidate's noun are avoided, so that
    # "A is the red block" never repeats an option's words and no candidate is an "orange
    # orange" or a "purple orange".
    words = set(re.findall(r"[a-z]+", " ".join((question.text, *options, *nouns)).lower()))
    names = [n for n in PALETTE if n not in words]
    if len(names) < len(candidates):
        names = list(PALETTE)
    order = rng.permutation(len(names))[: len(candidates)]
    return {c: names[int(i)] for c, i in zip(candidates, order, strict=True)}


def draw_layout(problem: TaskLike, rng: np.random.Generator) -> dict[str, Pose2D]:
    """Step 6: the candidates' layout from the scene's sampler, rounded (table frame)."""
    raw = sample_layout(as_task(problem).problem, rng)
    return {name: _rounded(p) for name, p in raw.items()}


def _rounded(p: Pose2D) -> Pose2D:
    return Pose2D(
        round(float(p.x), LAYOUT_DECIMALS),
        round(float(p.y), LAYOUT_DECIMALS),
        round(float(p.yaw), LAYOUT_DECIMALS),
    )


def draw_distractors(
    problem: TaskLike, rng: np.random.Generator, layout: dict[str, Pose2D]
) -> dict[str, Distractor]:
    """Step 7: the non-candidate objects' poses (rounded, table frame) around ``layout``, then
    a uniform palette color for each; ``{}`` (and no draw) when the task has none."""
    poses = sample_distractors(as_task(problem).problem, rng, layout)
    names = list(PALETTE)
    return {
        name: Distractor(_rounded(pose), names[int(rng.integers(len(names)))])
        for name, pose in poses.items()
    }


def assemble(
    problem: TaskLike,
    sem: Semantics,
    layout: dict[str, Pose2D],
    *,
    suite: str,
    split: str,
    index: int,
    seed: int,
    distractors: dict[str, Distractor] | None = None,
    arrangement: str | None = None,
) -> Episode:
    """The :class:`Episode` made of drawn semantics, a layout and the distractors;
    ``arrangement``: a designed row's plate order, recorded as ``extra["layout"]``."""
    extra: dict[str, object] = {"source": sem.source, **sem.source_extra}
    if arrangement is not None:
        extra["layout"] = arrangement
    if sem.shown:
        extra["plates"] = dict(sem.shown)
    return Episode.bound(
        suite=suite,
        split=split,
        index=int(index),
        seed=int(seed),
        task=Path(as_task(problem).path).name,
        question_id=sem.question.qid,
        question=sem.question.text,
        options=sem.options,
        correct=sem.correct,
        mapping=sem.mapping,
        colors=sem.colors,
        layout=layout,
        template_id=sem.template.id,
        instruction=sem.instruction,
        extra=extra,
        distractors=dict(distractors or {}),
    )


def sample_episode(
    problem: TaskLike,
    *,
    suite: str,
    split: str,
    index: int,
    seed: int,
    templates: str | None = None,
    source: QuestionSource | None = None,
) -> Episode:
    """Draw the episode ``(suite, split, index, seed)`` of ``problem``.

    Args:
        problem: a parsed task (:class:`rsb_mj.lang.Problem`, or its
            :class:`~rsb_mj.lang.task.Task`) with a ``:question`` block.
        suite: suite name (e.g. ``"RSB-Math-4"``) or ``""`` for a bare task file.
        split: ``"train"`` or ``"eval"``: the source's questions of that split, and the
            templates the task's ``:instruction`` selects for it (the suites: seen / unseen).
        index: the row index (recorded; it does not influence any draw).
        seed: the seed of ``numpy.random.default_rng``, the only source of randomness.
        templates: override the template set (``"seen"``/``"unseen"``), e.g. to evaluate
            on seen templates.
        source: draw the question from this source instead of the task's (a private
            draw's held-out reserve).

    Returns:
        The episode; the same arguments always give the same episode.

    Raises:
        EpisodeError: for an invalid split, source, template set or task (see
            :func:`draw_semantics`); SceneError when no layout fits.
    """
    rng = np.random.default_rng(seed)
    sem = draw_semantics(
        problem, suite=suite, split=split, rng=rng, templates=templates, source=source
    )
    layout = draw_layout(problem, rng)
    distractors = draw_distractors(problem, rng, layout)
    return assemble(
        problem,
        sem,
        layout,
        suite=suite,
        split=split,
        index=index,
        seed=seed,
        distractors=distractors,
    )


__all__ = [
    "LAYOUT_DECIMALS",
    "Pins",
    "Semantics",
    "assemble",
    "draw_distractors",
    "draw_layout",
    "draw_semantics",
    "sample_episode",
]
