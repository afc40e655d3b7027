"""RSB-HardMath: GSM8K grade-school word problems (MIT, github.com/openai/grade-school-math).

The question is the problem text; the answer is the text after ``####`` in the solution,
normalized (commas, currency signs and trailing zeros removed, see
:func:`rsb_mj.episodes.numeric.normalize_number`). Slips (plausible wrong answers) are the
intermediate results of the solution's calculator annotations ``<<16-3-4=9>>`` (stopping a
step early). A x10 slip is not used: an option pair (v, 10 v) would point at v. GSM8K has
no options; distractors are generated around the answer (:mod:`rsb_mj.episodes.options`).

Splits: train = GSM8K train (7,473, less 1 near-duplicate of a test problem), eval = GSM8K
test (1,319). Ids ``gsm8k-{train,test}-ROW``
(0-based line number).

Held-out reserve (private draws, :mod:`rsb_mj.tables.reserve`): the 530 test problems that
no shipped table asks (the HardMath eval tables and their levels ask 789 of the 1,319),
in file order. GSM8K has no other unseen problems: every test problem is public, and
language models are known to have memorized some; a private draw protects against a
look-up of the shipped rows, not against that.
"""

from __future__ import annotations

import dataclasses
import json
import re
from decimal import Decimal
from functools import cache

import numpy as np

from rsb_mj.episodes.numeric import (
    normalize_number,
    numbers_in,
    parse_number,
    step_of,
    trailing_zeros,
)
from rsb_mj.episodes.probes import measure_profile_weights, measure_value_weights
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import (
    QuestionSource,
    check_split,
    questions_dir,
    read_lines,
    without_near_duplicates,
)
from rsb_mj.errors import EpisodeError

#: Odds ratios measured on the train split (see :func:`measure_weights`): an answer is round
#: relative to its options' step (50, 100) in 19% of problems against 10% for a nearby
#: integer (odds ratio 2.4), and is a number written in the problem in 5.5% against 3.2% (1.7).
ROUND_WEIGHT = 2.4
ECHO_WEIGHT = 1.7
_CALC = re.compile(r"<<[^=<>]*=([^<>]+)>>")


def parse_solution(solution: str) -> tuple[str, tuple[str, ...]]:
    """(normalized final answer, intermediate results) of a GSM8K solution text.

    Raises:
        EpisodeError: when the solution has no ``####`` line or the answer is not a number.
    """
    if "####" not in solution:
        raise EpisodeError("GSM8K solution has no '####' final-answer line")
    answer = normalize_number(solution.rsplit("####", 1)[1])
    steps: list[str] = []
    for match in _CALC.finditer(solution):
        try:
            steps.append(normalize_number(match.group(1)))
        except EpisodeError:
            continue
    return answer, tuple(steps)


def _slips(answer: str, steps: tuple[str, ...]) -> tuple[str, ...]:
    value = parse_number(answer)
    out = list(steps)
    if value >= 0:
        out = [s for s in out if parse_number(s) >= 0]
    unique = dict.fromkeys(s for s in out if parse_number(s) != value)
    return tuple(s for s in unique if Decimal(s) == Decimal(s).to_integral_value())


def measure_weights(questions: tuple[Question, ...], seed: int = 0) -> tuple[float, float]:
    """(round, echo) odds ratios of ``questions``' answers against integers near them (up to
    10 steps away), the weights distractors are drawn with."""
    rng = np.random.default_rng(seed)
    hits = np.zeros((2, 2))  # [round, echo] x [answer, nearby]
    near = 0
    for q in questions:
        answer = parse_number(q.answer)
        step = step_of(answer)
        echoes = set(numbers_in(q.text))
        hits[0, 0] += bool(trailing_zeros(answer / step))
        hits[1, 0] += answer in echoes
        for k in rng.integers(1, 11, size=4) * rng.choice((-1, 1), size=4):
            value = answer + int(k) * step
            hits[0, 1] += bool(trailing_zeros(value / step))
            hits[1, 1] += value in echoes
            near += 1
    p_answer = hits[:, 0] / len(questions)
    p_near = hits[:, 1] / near
    odds = (p_answer / (1 - p_answer)) / (p_near / (1 - p_near))
    return float(odds[0]), float(odds[1])


class Gsm8kSource(QuestionSource):
    """GSM8K word problems (suites RSB-HardMath-4 and RSB-HardMath-10)."""

    name = "gsm8k"

    def pool(self, split: str) -> tuple[Question, ...]:
        """The GSM8K test problems (``eval``) or the train problems (``train``) less those
        that near-duplicate a test problem (1: train row 20 is test row 632 with other
        names), in file order."""
        return _train_pool() if check_split(split) == "train" else _load("test")

    def get(self, qid: str) -> Question:
        """Question ``gsm8k-train-N`` or ``gsm8k-test-N``."""
        parts = qid.split("-")
        if len(parts) == 3 and parts[0] == "gsm8k" and parts[1] in ("train", "test"):
            pool = _load(parts[1])
            if parts[2].isdigit() and int(parts[2]) < len(pool):
                return pool[int(parts[2])]
        raise EpisodeError(
            f"unknown GSM8K question id {qid!r}; expected gsm8k-train-N (N < 7473) "
            "or gsm8k-test-N (N < 1319)"
        )

    def split_of(self, qid: str) -> str:
        """``train`` for ``gsm8k-train-*`` ids, ``eval`` for ``gsm8k-test-*``."""
        return "train" if qid.startswith("gsm8k-train-") else "eval"


@cache
def profile_weights() -> tuple[float, ...]:
    """The "niceness" weights of distractors (:func:`measure_profile_weights` on the train
    answers): e.g. an answer has 8 or more divisors among 1..12 about 3 times as often as a
    nearby integer."""
    return measure_profile_weights(parse_number(q.answer) for q in _read("train"))


@cache
def value_weights() -> dict[str, float]:
    """The per-value weights of distractors (:func:`measure_value_weights` on the train
    answers)."""
    answers = (parse_number(q.answer) for q in _read("train"))
    return measure_value_weights(answers, classes=profile_weights())


#: Power the measured weights are raised to before drawing distractors: a distractor is drawn
#: from a window of a few values, so weighted draws without replacement flatten the odds;
#: squared odds bring the per-value prior fitted on a 1,000-row train table from 36% to about
#: 28% on 4 choices, and the divisor rule from 32% to 25% (measured on free draws, 3 seeds).
WEIGHT_POWER = 2.0


@cache
def _load(part: str) -> tuple[Question, ...]:
    classes = tuple(w**WEIGHT_POWER for w in profile_weights())
    values = {k: w**WEIGHT_POWER for k, w in value_weights().items()}
    return tuple(
        dataclasses.replace(q, profile_weights=classes, value_weights=values) for q in _read(part)
    )


@cache
def _train_pool() -> tuple[Question, ...]:
    return without_near_duplicates(_load("train"), _load("test"))


@cache
def _read(part: str) -> tuple[Question, ...]:
    out = []
    for row_no, line in enumerate(read_lines(questions_dir() / "gsm8k" / f"{part}.jsonl.gz")):
        row = json.loads(line)
        answer, steps = parse_solution(row["answer"])
        out.append(
            Question(
                qid=f"gsm8k-{part}-{row_no}",
                text=" ".join(row["question"].split()),
                answer=answer,
                numeric=True,
                slips=_slips(answer, steps),
                round_weight=ROUND_WEIGHT,
                echo_weight=ECHO_WEIGHT,
            )
        )
    return tuple(out)
