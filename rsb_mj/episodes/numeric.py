"""Parse and format the numeric answers of Math and HardMath questions.

Answers are kept as :class:`decimal.Decimal` so that ``"1,080"``, ``"$1080"`` and
``"1080.00"`` all normalize to ``"1080"`` and arithmetic on them is exact.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from rsb_mj.errors import EpisodeError

_CLEAN = re.compile(r"[,\s$€£%]")
_LEADING = re.compile(r"^\s*[-\u2212]?[$€£]?\d[\d,]*(?:\.\d+)?")


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
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def format_number(value: Decimal, decimals: int = 0) -> str:
    """``value`` with exactly ``decimals`` digits after the point, no grouping, ``-0`` -> ``0``."""
    quantum = Decimal(1).scaleb(-decimals)
    text = f"{value.quantize(quantum):f}"
    return "0" if Decimal(text) == 0 and decimals == 0 else text


def normalize_number(text: str) -> str:
    """Canonical text of a numeric answer: ``"1,080"`` -> ``"1080"``, ``"2.50"`` -> ``"2.5"``."""
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
