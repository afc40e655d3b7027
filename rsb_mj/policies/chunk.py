"""What counts as an action chunk: the one check for policies and policy servers.

A policy's ``act`` (checked by :mod:`rsb_mj.evaluation.rollout`) and an openpi server's
``actions`` (checked by :mod:`rsb_mj.policies.openpi` before its conventions apply) must be
one action ``(14,)`` or a non-empty chunk ``(H, 14)`` of finite numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rsb_mj.errors import PolicyError
from rsb_mj.policies.base import ACTION_DIM

__all__ = ["check_chunk"]


def check_chunk(value: Any, who: str, what: str) -> np.ndarray:
    """``value`` as a float64 (H, 14) chunk (one action becomes one row).

    Args:
        value: what the policy or server produced.
        who: the producer, first in every message (``"policy expert"``,
            ``"openpi server ws://host:port"``).
        what: the words before the fault (``"act() returned"``, ``"its actions have"``).

    Raises:
        PolicyError: ``"{who}: {what} shape (H, 13); expected (14,) or (H, 14)"``, or values
            that are not numbers, or non-finite values with their (row, index).
    """
    expected = f"expected ({ACTION_DIM},) or (H, {ACTION_DIM})"
    try:
        chunk = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise PolicyError(
            f"{who}: {what} {type(value).__name__} that is not an array of numbers ({exc}); "
            f"{expected}"
        ) from None
    if chunk.ndim == 1:
        chunk = chunk[None]
    if chunk.ndim != 2 or chunk.shape[1] != ACTION_DIM or chunk.shape[0] == 0:
        raise PolicyError(f"{who}: {what} shape {chunk.shape}; {expected}")
    bad = np.argwhere(~np.isfinite(chunk))
    if bad.size:
        raise PolicyError(
            f"{who}: {what} non-finite values at (row, index) "
            f"{[tuple(map(int, b)) for b in bad[:4]]}"
        )
    return chunk
