"""Number-shape probes: "nice" numbers, digits and magnitude of the options.

Text-only shortcuts of numeric options that a policy could learn without solving the
question (the attacks of issue 9): the answer of a word problem or a product is often a
"nice" number (many divisors, round), and near-value distractors differ from it in their
last digits. This module measures numbers (what the option sampler and the question
sources weigh); the shortcuts built on it, per episode, are :mod:`rsb_mj.tables.heuristics`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from rsb_mj.episodes.numeric import decimals_of, format_number, step_of

#: Divisors looked at by the "niceness" of a number.
DIVISORS = tuple(range(1, 13))


@functools.lru_cache(maxsize=1 << 16)
def profile(value: Decimal, step: Decimal) -> int:
    """The "niceness" class of ``value``: ``2 * divisor_count + round``, where ``round`` says
    the value is a multiple of 10 steps (0..25). Distractors are drawn so that their classes
    are distributed like the answers' (:mod:`rsb_mj.episodes.options`).

    Remembered per (value, step): it depends on the numbers only, not on how they are written,
    and measuring the GSM8K weights asks for ~150,000 classes of far fewer values."""
    units = value / step
    is_round = units == units.to_integral_value() and int(units) % 10 == 0 and units != 0
    return 2 * divisor_count(value) + int(is_round)


#: Pseudo-answers of :func:`measure_profile_weights`.
PRIOR = 20.0
#: Pseudo-answers of :func:`measure_value_weights`.
VALUE_STRENGTH = 5.0
#: Number of :func:`profile` classes.
PROFILES = 2 * (len(DIVISORS) + 1)


def measure_profile_weights(answers: Iterable[Decimal], reach: int = 10) -> tuple[float, ...]:
    """One weight per :func:`profile` class: how much likelier an answer is in the class than
    a value ``1..reach`` steps (:func:`~rsb_mj.episodes.numeric.step_of`) away from it,
    ``P(answer in c) / P(nearby value in c)``. The answer share is smoothed with ``PRIOR``
    pseudo-answers distributed like the nearby values, so a class with few answers gets a
    weight near 1 (exactly 1 for a class no nearby value is in). Nearby values below 0 are
    skipped for non-negative answers, as the option generator avoids them."""
    ans = [0.0] * PROFILES
    near = [0.0] * PROFILES
    for answer in answers:
        step = step_of(answer)
        ans[profile(answer, step)] += 1
        for k in (*range(-reach, 0), *range(1, reach + 1)):
            value = answer + k * step
            if value >= 0 or answer < 0:
                near[profile(value, step)] += 1
    n_ans, n_near = sum(ans), sum(near)
    out = []
    for a, b in zip(ans, near, strict=True):
        q = b / n_near
        out.append(round((a + PRIOR * q) / (n_ans + PRIOR) / q, 4) if b else 1.0)
    return tuple(out)


def measure_value_weights(
    answers: Iterable[Decimal],
    reach: int = 10,
    strength: float = VALUE_STRENGTH,
    classes: tuple[float, ...] | None = None,
) -> dict[str, float]:
    """One weight per value (normalized text, ``"1080"``) seen as an answer or near one: the
    :func:`measure_profile_weights` weight of its class times how much more often the value
    is an answer than its class predicts, ``(answers + s) / (expected + s)`` with ``s`` =
    ``strength`` pseudo-answers. Distractors drawn with these weights take popular answer
    values (10, 20, 100 in GSM8K) as often as answers do, so a per-value answer prior learned
    on train data gains little on eval data. ``classes``: the class weights of ``answers``
    when already measured (:func:`measure_profile_weights` with the same ``reach``)."""
    answers = list(answers)
    if classes is None:
        classes = measure_profile_weights(answers, reach)
    counts: Counter = Counter()
    near: Counter = Counter()
    for answer in answers:
        step = step_of(answer)
        counts[_key(answer)] += 1
        for k in (*range(-reach, 0), *range(1, reach + 1)):
            value = answer + k * step
            if value >= 0 or answer < 0:
                near[_key(value)] += 1
    scale = len(answers) / max(1, near.total())
    out = {}
    for key in sorted(set(near) | set(counts)):
        value = Decimal(key)
        w = classes[profile(value, step_of(value))]
        expected = w * near[key] * scale
        out[key] = round(w * (counts[key] + strength) / (expected + strength), 4)
    return out


def _key(value: Decimal) -> str:
    return format_number(value, decimals_of(value))


def divisor_count(value: Decimal) -> int:
    """How many of 1..12 divide ``value`` (0 for a non-integer; 12 for 0)."""
    if value != value.to_integral_value():
        return 0
    v = abs(int(value))
    return sum(v % d == 0 for d in DIVISORS)


def units_digit(value: Decimal) -> str:
    """The last written digit of ``value`` (``"3"`` for 1.23, ``"0"`` for 540)."""
    text = f"{abs(value):f}"
    return text[-1]


def last_two_digits(value: Decimal) -> str:
    """The last two written digits of ``value`` (``"07"`` for 7, ``"23"`` for 1.23)."""
    digits = f"{abs(value):f}".replace(".", "")
    return digits[-2:].rjust(2, "0")


def magnitude(value: Decimal) -> int:
    """Number of digits of the integer part of ``value`` (1 for 0..9)."""
    return len(str(abs(int(value))))
