"""Parse and format the numeric answers of Math and HardMath questions.

Answers are kept as :class:`decimal.Decimal` so that ``"1,080"``, ``"$1080"`` and
``"1080.00"`` all normalize to ``"1080"`` and arithmetic on them is exact. Formatting works
for any finite value up to :data:`MAX_FORMAT_DIGITS` digits (a :class:`EpisodeError` beyond,
never a :class:`decimal.InvalidOperation`); a numeric answer of a question bank must also lie
within :data:`MAX_ANSWER_DIGITS` digits before the point and :data:`MAX_ANSWER_DECIMALS`
after it (:func:`check_answer`): its options are written on the blocks.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache

from rsb_mj.errors import EpisodeError

_CLEAN = re.compile(r"[,\s$€£%]")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_LEADING = re.compile(r"^\s*[-\u2212]?[$€£]?\d[\d,]*(?:\.\d+)?")
#: Most digits before the point of a numeric question-bank answer (below 10**15).
MAX_ANSWER_DIGITS = 15
#: Most digits after the point of a numeric question-bank answer.
MAX_ANSWER_DECIMALS = 6
#: Most digits :func:`format_number` writes (a longer number is an error, not a long string).
MAX_FORMAT_DIGITS = 1000


@lru_cache(maxsize=1 << 16)
def parse_number(text: str) -> Decimal:
    """Parse a final answer such as ``"1,080"``, ``"$18"``, ``"-3"`` or ``"2.50"``.

    Raises:
        EpisodeError: when ``text`` is not a number, quoting it.
    """
    cleaned = _CLEAN.sub("", text.strip())
    cleaned = cleaned.replace("\u2212", "-")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise EpisodeError(f"answer {text!r} is not a number") from None
    if not value.is_finite():
        raise EpisodeError(f"answer {text!r} is not a finite number")
    return value


def decimals_of(value: Decimal) -> int:
    """Number of digits after the decimal point once trailing zeros are dropped (0 for ints)."""
    _, digits, exponent = value.as_tuple()  # (no context: exact for any number of digits)
    if not isinstance(exponent, int) or not any(digits):
        return 0
    zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return max(0, -(exponent + zeros))


def check_answer(value: Decimal, text: str) -> Decimal:
    """``value`` (parsed from ``text``) if it may be a numeric answer of a question bank.

    Raises:
        EpisodeError: for more than :data:`MAX_ANSWER_DIGITS` digits before the point or
            :data:`MAX_ANSWER_DECIMALS` after it, quoting ``text`` and the limits.
    """
    if abs(value) >= Decimal(10) ** MAX_ANSWER_DIGITS or decimals_of(value) > MAX_ANSWER_DECIMALS:
        raise EpisodeError(
            f"answer {text!r} is out of range: a numeric answer has at most "
            f"{MAX_ANSWER_DIGITS} digits before the point and {MAX_ANSWER_DECIMALS} after it "
            "(give it options to use another text)"
        )
    return value


def format_number(value: Decimal, decimals: int = 0) -> str:
    """``value`` with exactly ``decimals`` digits after the point, no grouping, ``-0`` -> ``0``.

    Raises:
        EpisodeError: when the text would have more than :data:`MAX_FORMAT_DIGITS` digits.
    """
    digits = max(value.adjusted(), 0) + 1 + max(decimals, 0)
    if not value.is_finite() or digits > MAX_FORMAT_DIGITS:
        raise EpisodeError(f"number {value} has too many digits to write out")
    quantum = Decimal(1).scaleb(-decimals)
    with localcontext() as ctx:  # enough precision for every digit: quantize never fails
        ctx.prec = max(ctx.prec, digits + 2)
        text = f"{value.quantize(quantum):f}"
    return "0" if Decimal(text) == 0 and decimals == 0 else text


def normalize_number(text: str) -> str:
    """Canonical text of a numeric answer: ``"1,080"`` -> ``"1080"``, ``"2.50"`` -> ``"2.5"``.

    Raises:
        EpisodeError: when ``text`` is not a number, or one too long to write out.
    """
    value = parse_number(text)
    return format_number(value, decimals_of(value))


@lru_cache(maxsize=1 << 16)
def leading_number(text: str) -> Decimal | None:
    """The number an option starts with (``"$56,300"`` -> 56300, ``"5.2 m/s"`` -> 5.2), or
    None when it does not start with one."""
    match = _LEADING.match(text)
    if match is None:
        return None
    try:
        return parse_number(match.group(0))
    except EpisodeError:
        return None


def all_numeric(options: tuple[str, ...] | list[str]) -> bool:
    """True when every option starts with a number (numeric options, possibly with units)."""
    return all(leading_number(o) is not None for o in options)


def trailing_zeros(value: Decimal) -> int:
    """Trailing zeros of the integer part (0 for 0): 54000 -> 3."""
    digits = str(abs(int(value)))
    return 0 if set(digits) == {"0"} else len(digits) - len(digits.rstrip("0"))


def step_of(value: Decimal) -> Decimal:
    """Spacing of generated distractors: 10**-d for d decimals, else 10**k for a round
    integer with k trailing zeros, keeping at least two significant digits (54000 -> 1000,
    50 -> 1, 1200 -> 100)."""
    decimals = decimals_of(value)
    if decimals:
        return Decimal(1).scaleb(-decimals)
    digits = str(abs(int(value)))
    return Decimal(10) ** min(trailing_zeros(value), max(0, len(digits) - 2))


def numbers_in(text: str) -> list[Decimal]:
    """The numbers written in digits in ``text`` (``"$1,080"`` -> 1080)."""
    out = []
    for match in _NUMBER.findall(text):
        try:
            out.append(parse_number(match))
        except EpisodeError:
            continue
    return out
