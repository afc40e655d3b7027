"""Number literals of task files: the range they must lie in, read as ``float`` or ``int``.

A literal beyond +-:data:`MAX_MAGNITUDE` raises :class:`NumberRangeError` while the file is
parsed; the parser reports it as RSB107 ``number-out-of-range`` at the literal.
"""

from __future__ import annotations

import math

__all__ = ["MAX_MAGNITUDE", "NumberRangeError", "read_float", "read_number"]

#: Largest magnitude a number in a task file may have. Lengths are metres, angles radians,
#: forces newtons, part ids small integers: 1e9 leaves room for any real use while every
#: later computation (areas, packing bounds, squared distances) stays finite.
MAX_MAGNITUDE = 1e9


class NumberRangeError(ValueError):
    """A number literal outside +-:data:`MAX_MAGNITUDE` (``1e300``, ``1e999``, ``10**400``);
    carries the token and whether a 64-bit float can hold it at all."""

    def __init__(self, token: str, finite: bool) -> None:
        super().__init__(str(token))
        self.token = token
        self.finite = finite


def read_float(token: str) -> float:
    """The value of a NUMBER token.

    Raises:
        NumberRangeError: beyond +-:data:`MAX_MAGNITUDE` (or beyond a float).
    """
    value = float(token)
    if not abs(value) <= MAX_MAGNITUDE:  # also catches inf (never nan: no such literal)
        raise NumberRangeError(token, math.isfinite(value))
    return value


def read_number(text: str) -> float | int:
    """The value of a NUMBER token: an ``int`` when written as one (``4``, not ``4.0``)."""
    value = read_float(text)
    return (
        int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
    )
