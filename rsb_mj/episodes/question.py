"""One multiple-choice question as a value, before options are drawn for an episode."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Question:
    """A question from a source, with its answer and (if the source has them) distractors.

    Attributes:
        qid: stable id in its source, e.g. ``"arith-sub-27-17"``, ``"gsm8k-test-17"``,
            ``"mmlu_pro-2804"``, ``"mmlu-anatomy-12"``.
        text: the question as the instruction shows it.
        answer: the correct answer's text (numbers normalized, see :mod:`.numeric`).
        distractors: the source's own wrong options (``()`` when options are generated).
        numeric: True when the answer is a number and options are generated around it.
        slips: plausible wrong numeric answers (e.g. the swapped operation), used as
            distractors when they fit; only for numeric questions.
        round_weight: how much likelier (odds ratio) a source's answer is round relative to
            the step of its options than a nearby integer is; generated distractors are drawn
            with this weight so that "pick the roundest option" gains nothing.
        echo_weight: the same odds ratio for "the value is written in the question".
        profile_weights: when given, replaces ``round_weight``: one odds ratio per "niceness"
            class (:func:`rsb_mj.episodes.probes.profile`: divisors among 1..12 and
            roundness) of the source's answers against the integers near them, so that
            generated distractors are as "nice" as answers are.
        value_weights: when given, the weight of a distractor value by its normalized text
            (:func:`rsb_mj.episodes.probes.measure_value_weights`), before
            ``profile_weights`` for values it does not list.
        step: spacing of generated distractors when the question fixes it (``"7"`` for
            ``7 times 23``: distractors are other multiples of 7, results of the same
            expression family); ``""`` for the default of
            :func:`rsb_mj.episodes.numeric.step_of`.
        subject: the source's subject or category (``"biology"``, ``"anatomy"``,
            ``"COLOR"``), ``""`` when it has none; ``(:subject ...)`` parameters select on it.
        form: ``"question"`` (a question or a sentence stem, "what is 27 minus 17?") or
            ``"target"`` (a description of the candidate to act on, "the orange hexagon");
            an instruction uses the templates of its question's form
            (:mod:`rsb_mj.episodes.templates`).
        displays: how a candidate that shows its option's answer (an ``answer_plate``,
            :mod:`rsb_mj.scene.display`) draws each answer, as picture specs
            (:mod:`rsb_mj.scene.pictures`): the answer's first, then one per distractor, in
            order; ``()`` when the source has none (its options are only text).
    """

    qid: str
    text: str
    answer: str
    distractors: tuple[str, ...] = ()
    numeric: bool = False
    slips: tuple[str, ...] = ()
    round_weight: float = 1.0
    echo_weight: float = 1.0
    profile_weights: tuple[float, ...] = ()
    value_weights: Mapping[str, float] = field(default_factory=dict, hash=False, compare=False)
    step: str = ""
    subject: str = ""
    form: str = "question"
    displays: tuple[str, ...] = ()

    def serves(self, choices: int) -> bool:
        """True when an episode with ``choices`` options can be made of this question: its
        options are generated (numeric), or it has at least ``choices - 1`` distractors."""
        return self.numeric or len(self.distractors) >= choices - 1

    def display_of(self, option: str) -> str | None:
        """The picture spec ``option`` (the answer or a distractor) is shown as, or None when
        the question has no displays."""
        if not self.displays:
            return None
        return dict(zip((self.answer, *self.distractors), self.displays, strict=True))[option]
