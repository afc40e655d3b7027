"""One multiple-choice question as a value, before options are drawn for an episode."""

from __future__ import annotations

from dataclasses import dataclass


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
    """

    qid: str
    text: str
    answer: str
    distractors: tuple[str, ...] = ()
    numeric: bool = False
    slips: tuple[str, ...] = ()
    round_weight: float = 1.0
    echo_weight: float = 1.0
