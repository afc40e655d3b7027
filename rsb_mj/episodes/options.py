"""Draw the options of one episode: distinct, with the correct one's letter and rank uniform.

Numeric questions (Math, HardMath): the answer plus ``n - 1`` generated distractors, shown in
ascending order. The correct option's rank ``r`` is drawn uniformly from ``0..n-1`` first, then
``r`` distractors are drawn below the answer and ``n - 1 - r`` above it, so its rank among the
sorted options *and* its letter (letter = rank) are uniform and independent of the question.
The option values are ``n`` distinct slots of a window of ``window(n) + 1`` steps
(a step is 1, or 10**k for round answers such as 54000, so all options look alike) with the
answer the ``r``-th smallest: its offset in the window follows the law of the ``r``-th of
``n`` uniform slots, so the shape of the option set is independent of where the answer sits
in it and no shape heuristic ("closest to the mean") beats chance. A question may fix the
step (``Question.step``): a product ``a x b`` takes ``a``, so its distractors are other
multiples of ``a``, results of the same expression ``a x b'``, with the answer's divisibility
(the "most divisors among 1..12" rule is at chance). Distractor slots are drawn with weights
(Efraimidis-Spirakis keys) so that distractors look like answers: a value written in the
question gets the source's odds ``Question.echo_weight``, and a value gets
``Question.value_weights[value]`` if the source lists it, else the weight of its "niceness"
class (divisors among 1..12, roundness) ``Question.profile_weights``, else
``Question.round_weight`` if it is round in units of the step (GSM8K: weights measured on
its train answers, so popular answer values such as 10, 20 and 100 and numbers with many
divisors are as common among distractors as among answers; 1 for the generated arithmetic).
HardMath questions add plausible
slips (an intermediate result of the solution: stopping a step early) that fall inside the
span of the drawn values, each replacing a near distractor on its side with probability
1/2. If ``FLOOR_TRIES`` shapes all reach below 0 for a non-negative answer, the ``r`` values
below it are packed one step apart; so options are negative only when the answer is smaller
than its rank (a GSM8K answer of 3 as the 6th of 10 options), never for Math (answers >= 10).

Text questions (General): the answer plus ``n - 1`` of the source's own distractors, shuffled.
When the source has more distractors than needed (MMLU-Pro's 9 for a 4-choice episode), the
answer's *length rank* among the chosen options is drawn uniformly first (as far as the
question allows), so "pick the longest option" stays at chance.
"""

from __future__ import annotations

from decimal import Decimal
from math import comb

import numpy as np

from rsb_mj.choices import LETTERS, counts_text
from rsb_mj.episodes.numeric import (
    decimals_of,
    format_number,
    numbers_in,
    parse_number,
    step_of,
)
from rsb_mj.episodes.probes import profile
from rsb_mj.episodes.question import Question
from rsb_mj.errors import EpisodeError


def window(n: int) -> int:
    """Width, in steps, of the window the ``n`` option values are drawn from."""
    return 2 * (n - 1) + 2


#: Configurations tried before options may fall below a non-negative answer's floor of 0.
FLOOR_TRIES = 32


def draw_options(
    question: Question, n: int, rng: np.random.Generator
) -> tuple[tuple[str, ...], str]:
    """The ``n`` option texts in letter order and the correct option's letter.

    Raises:
        EpisodeError: for an unsupported ``n`` or a text question with too few distractors.
    """
    if n not in LETTERS:
        raise EpisodeError(f"{n} options; valid choices: {counts_text()}")
    if question.numeric:
        options, index = _numeric(question, n, rng)
    else:
        options, index = _text(question, n, rng)
    return options, LETTERS[n][index]


def pinned_options(question: Question, correct: str, n: int) -> tuple[str, ...]:
    """The ``n`` option texts of a designed row (:class:`rsb_mj.episodes.sampler.Pins`): the
    answer at letter ``correct``, the question's first ``n - 1`` distractors in order at the
    other letters. Nothing is drawn.

    Raises:
        EpisodeError: for an unsupported ``n``, a letter outside it, or too few distractors.
    """
    if n not in LETTERS:
        raise EpisodeError(f"{n} options; valid choices: {counts_text()}")
    if correct not in LETTERS[n]:
        raise EpisodeError(f"correct option {correct!r}; valid choices: {', '.join(LETTERS[n])}")
    if len(question.distractors) < n - 1:
        raise EpisodeError(
            f"question {question.qid} has {len(question.distractors)} distractors; "
            f"{n} options need {n - 1}"
        )
    rest = list(question.distractors[: n - 1])
    index = LETTERS[n].index(correct)
    return (*rest[:index], question.answer, *rest[index:])


def _numeric(question: Question, n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], int]:
    answer = parse_number(question.answer)
    step = parse_number(question.step) if question.step else step_of(answer)
    decimals = max(decimals_of(step), decimals_of(answer))
    rank = int(rng.integers(n))
    width = window(n)
    # Offset of the answer in the window: the law of the rank-th smallest of n distinct
    # uniform slots of 0..width, so (with unit weights) the option set is exactly n uniform
    # slots with the answer the rank-th of them.
    offsets = list(range(rank, width - (n - 1 - rank) + 1))
    law = np.array([comb(o, rank) * comb(width - o, n - 1 - rank) for o in offsets], float)
    # Work in whole steps: a value is answer + k * step, i.e. ``units + k`` steps from 0.
    units = int(answer / step)
    echoes = {
        int((e - answer) / step) for e in numbers_in(question.text) if (e - answer) % step == 0
    }

    def nice(k: int) -> float:
        """The weight of value ``answer + k * step`` for its "niceness"."""
        if question.value_weights:
            value = answer + k * step
            weight = question.value_weights.get(format_number(value, decimals_of(value)))
            if weight is not None:
                return weight
        if question.profile_weights:
            return question.profile_weights[profile(answer + k * step, step)]
        return question.round_weight if (units + k) % 10 == 0 and units + k else 1.0

    def pick(ks: list[int], count: int) -> list[int]:
        """``count`` of ``ks`` without replacement, weighted (Efraimidis-Spirakis keys)."""
        if count == 0:
            return []
        w = np.array([nice(k) * (question.echo_weight if k in echoes else 1.0) for k in ks])
        keys = rng.random(len(ks)) ** (1.0 / w)
        return [ks[int(i)] for i in np.argsort(-keys, kind="stable")[:count]]

    cdf = np.cumsum(law / law.sum())
    for _ in range(FLOOR_TRIES):
        offset = offsets[min(int(np.searchsorted(cdf, rng.random(), side="right")), len(cdf) - 1)]
        below = pick(list(range(-offset, 0)), rank)
        above = pick(list(range(1, width - offset + 1)), n - 1 - rank)
        ks = sorted([*below, 0, *above])
        if answer < 0 or units + ks[0] >= 0:
            break
    else:  # the answer is too small for a drawn shape: pack the values below it tightly
        ks = list(range(-rank, 0)) + ks[rank:]
    values = _with_slips(question, [answer + k * step for k in ks], rank, step, rng)
    assert len(set(values)) == n and sorted(values)[rank] == answer
    return tuple(format_number(v, decimals) for v in sorted(values)), rank


def _with_slips(
    question: Question,
    values: list[Decimal],
    rank: int,
    step: Decimal,
    rng: np.random.Generator,
) -> list[Decimal]:
    """Replace near distractors by the question's slips, each kept with probability 1/2,
    on the same side of the answer (so the rank is unchanged). Only slips inside the span of
    the drawn values are used: a far slip would be an outlier that moves the options' mean
    towards the answer (measured: "closest to the mean" 11.6% instead of 10%)."""
    answer = values[rank]
    out = list(values)
    for text in question.slips:
        slip = parse_number(text)
        keep = rng.random() < 0.5
        if (
            not keep
            or slip in out
            or (slip - answer) % step
            or not min(values) < slip < max(values)
        ):
            continue
        side = [i for i in range(len(out)) if (out[i] < answer) == (slip < answer) and i != rank]
        side = [i for i in side if out[i] in values]  # never replace an earlier slip
        if side:
            out[side[int(rng.integers(len(side)))]] = slip
    return out


def _text(question: Question, n: int, rng: np.random.Generator) -> tuple[tuple[str, ...], int]:
    pool = list(question.distractors)
    need = n - 1
    if not question.serves(n):
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
