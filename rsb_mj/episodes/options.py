"""Draw the options of one episode: distinct, with the correct one's letter and rank uniform.

Numeric questions (Math, HardMath): the answer plus ``n - 1`` generated distractors, shown in
ascending order. The correct option's rank ``r`` is drawn uniformly from ``0..n-1`` first, then
``r`` distractors are drawn below the answer and ``n - 1 - r`` above it, so its rank among the
sorted options *and* its letter (letter = rank) are uniform and independent of the question.
Distractors are near the answer: multiples of a step (1, or 10**k for round answers such as
54000, so all options look alike) within ``spread(n)`` steps, with the question's plausible
slips (swapped operation, carry slip, x10, an intermediate result) taking a place each with
probability 1/2 when they fit. Options stay non-negative for a non-negative answer unless the
answer is too small to have ``r`` non-negative values below it (GSM8K answers under 9);
only then do negative values appear.

Text questions (General): the answer plus ``n - 1`` of the source's own distractors, shuffled.
When the source has more distractors than needed (MMLU-Pro's 9 for a 4-choice episode), the
answer's *length rank* among the chosen options is drawn uniformly first (as far as the
question allows), so "pick the longest option" stays at chance.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from rsb_mj.episode import LETTERS
from rsb_mj.episodes.numeric import decimals_of, format_number, parse_number
from rsb_mj.episodes.question import Question
from rsb_mj.errors import EpisodeError


def spread(n: int) -> int:
    """How many steps away from the answer a near distractor may lie, for ``n`` options."""
    return max(6, 2 * (n - 1))


def draw_options(
    question: Question, n: int, rng: np.random.Generator
) -> tuple[tuple[str, ...], str]:
    """The ``n`` option texts in letter order and the correct option's letter.

    Raises:
        EpisodeError: for an unsupported ``n`` or a text question with too few distractors.
    """
    if n not in LETTERS:
        raise EpisodeError(f"{n} options; valid choices: 4, 10")
    if question.numeric:
        options, index = _numeric(question, n, rng)
    else:
        options, index = _text(question, n, rng)
    return options, LETTERS[n][index]


def step_of(value: Decimal) -> Decimal:
    """Spacing of generated distractors: 10**-d for d decimals, else 10**k for a round
    integer with k trailing zeros, keeping at least two significant digits (54000 -> 1000,
    50 -> 1, 1200 -> 100)."""
    decimals = decimals_of(value)
    if decimals:
        return Decimal(1).scaleb(-decimals)
    digits = str(abs(int(value)))
    zeros = len(digits) - len(digits.rstrip("0")) if int(value) else 0
    return Decimal(10) ** min(zeros, max(0, len(digits) - 2))


def _numeric(question: Question, n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], int]:
    answer = parse_number(question.answer)
    step = step_of(answer)
    decimals = decimals_of(step)
    rank = int(rng.integers(n))
    floor = Decimal(0) if answer >= 0 else None
    slips = {parse_number(s) for s in question.slips}
    slips = {s for s in slips if s != answer and (s - answer) % step == 0}
    if floor is not None:
        slips = {s for s in slips if s >= floor}
    below = _pick(
        sorted((s for s in slips if s < answer), reverse=True),
        [answer - k * step for k in range(1, spread(n) + 1)],
        rank,
        rng,
        floor,
    )
    above = _pick(
        sorted(s for s in slips if s > answer),
        [answer + k * step for k in range(1, spread(n) + 1)],
        n - 1 - rank,
        rng,
        None,
    )
    values = sorted([*below, answer, *above])
    assert len(set(values)) == n and values[rank] == answer
    return tuple(format_number(v, decimals) for v in values), rank


def _pick(
    slips: list[Decimal],
    near: list[Decimal],
    count: int,
    rng: np.random.Generator,
    floor: Decimal | None,
) -> list[Decimal]:
    """``count`` distinct values: each slip kept with probability 1/2, then near values.

    ``near`` is ordered by distance from the answer; values under ``floor`` are used only when
    there are not enough others (then the nearest ones are taken).
    """
    chosen: list[Decimal] = []
    for slip in slips:
        keep = rng.random() < 0.5
        if keep and len(chosen) < count:
            chosen.append(slip)
    allowed = [v for v in near if (floor is None or v >= floor) and v not in chosen]
    need = count - len(chosen)
    if need <= len(allowed):
        picks = rng.choice(len(allowed), size=need, replace=False) if need else []
        chosen.extend(allowed[int(i)] for i in picks)
        return chosen
    chosen.extend(allowed)
    step = abs(near[0] - near[1]) if len(near) > 1 else Decimal(1)
    value = min([*chosen, near[0] + step]) if chosen else near[0]
    while len(chosen) < count:  # too close to the floor: continue below it
        value -= step
        if value not in chosen:
            chosen.append(value)
    return chosen


def _text(question: Question, n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], int]:
    pool = list(question.distractors)
    need = n - 1
    if len(pool) < need:
        raise EpisodeError(
            f"question {question.qid} has {len(pool)} distractors; {n} options need {need}"
        )
    if len(pool) > need:
        shorter = [d for d in pool if len(d) < len(question.answer)]
        longer = [d for d in pool if len(d) >= len(question.answer)]
        wanted = int(rng.integers(n))  # number of chosen distractors shorter than the answer
        k = min(max(wanted, need - len(longer)), len(shorter))
        picks_s = rng.choice(len(shorter), size=k, replace=False) if k else []
        picks_l = rng.choice(len(longer), size=need - k, replace=False) if need - k else []
        pool = [shorter[int(i)] for i in sorted(picks_s)]
        pool += [longer[int(i)] for i in sorted(picks_l)]
    options = [question.answer, *pool]
    order = rng.permutation(n)
    shuffled = tuple(options[int(i)] for i in order)
    return shuffled, int(np.flatnonzero(order == 0)[0])
