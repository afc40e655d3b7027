"""Per-layer features a policy hands over with its actions, for layerwise probing.

A policy may expose what its layers computed for its last ``act``: a mapping *layer name ->
1-D numeric array*, names in depth order (the first is the layer nearest the input). How:

* a Python policy (a :class:`~rsb_mj.policies.base.Policy`, or any object a ``module:factory``
  returns): a ``features`` attribute or property holding the mapping, or a ``features()``
  method returning it (called only for the acts whose features ``rsb eval --features``
  stores), read right after ``act``; ``None`` means "none for this act";
* an openpi server: the reply key ``features`` (:mod:`rsb_mj.policies.openpi`);
* a policy built on torch modules (the LeRobot adapter): forward hooks on modules named on
  the command line (``rsb eval --feature-modules``, :mod:`rsb_mj.policies.feature_hooks`).

Nothing flows back: features are read after the action is taken, never scored, never shown
to the policy again. :func:`check_features` is the one check every path goes through.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rsb_mj.errors import PolicyError

#: Most values one act's features may hold, all layers together (8 MiB at float16).
MAX_FEATURE_VALUES = 1 << 22
#: Most layers one act may report.
MAX_LAYERS = 4096
#: Longest layer name [chars].
MAX_NAME_CHARS = 200
#: The dtypes kinds accepted: bool, signed and unsigned integers, floats.
_KINDS = "biuf"


def read_features(source: Any) -> Any:
    """The raw features of ``source`` (a policy or a user's object): its ``features``
    attribute, or what its ``features()`` method returns; None when it has neither."""
    value = getattr(source, "features", None)
    return value() if callable(value) else value


def offers_features(source: Any) -> bool:
    """True when ``source`` (a user's object) has a ``features`` attribute or method."""
    return hasattr(source, "features")


def check_features(value: Any, who: str) -> dict[str, np.ndarray] | None:
    """``value`` as ``{layer name: 1-D float32 array}`` in the policy's order, or None.

    Args:
        value: what the policy handed over (a mapping, or None for none).
        who: the policy, for messages (``"policy my_pkg:make"``).

    Raises:
        PolicyError: naming the layer and what is wrong: not a mapping, a name that is not
            a non-empty string, a value that is not a 1-D numeric array, non-finite values,
            more than :data:`MAX_LAYERS` layers or :data:`MAX_FEATURE_VALUES` values.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise PolicyError(
            f"{who}: features must be a mapping of layer name -> 1-D array, got "
            f"{type(value).__name__}"
        )
    if len(value) > MAX_LAYERS:
        raise PolicyError(f"{who}: features hold {len(value)} layers; at most {MAX_LAYERS}")
    out: dict[str, np.ndarray] = {}
    total = 0
    for name, array in value.items():
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_CHARS:
            raise PolicyError(
                f"{who}: features: layer name {name!r:.60} must be a string of 1 to "
                f"{MAX_NAME_CHARS} characters"
            )
        arr = _as_array(array, who, name)
        total += arr.size
        if total > MAX_FEATURE_VALUES:
            raise PolicyError(
                f"{who}: features hold more than {MAX_FEATURE_VALUES} values in one act; "
                "report fewer layers or pool them (e.g. the mean over tokens)"
            )
        out[name] = arr
    return out or None


def _as_array(value: Any, who: str, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"{who}: features: layer {name!r} is not an array ({exc})") from None
    if arr.dtype.kind not in _KINDS:
        raise PolicyError(
            f"{who}: features: layer {name!r} has dtype {arr.dtype}; numbers only "
            "(bool, int, uint, float)"
        )
    if arr.ndim != 1 or arr.size == 0:
        raise PolicyError(
            f"{who}: features: layer {name!r} has shape {arr.shape}; expected a non-empty "
            "1-D array (pool tokens first, e.g. their mean)"
        )
    arr = arr.astype(np.float32)
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise PolicyError(
            f"{who}: features: layer {name!r} has a non-finite value at index {bad} ({arr[bad]})"
        )
    return arr


__all__ = [
    "MAX_FEATURE_VALUES",
    "MAX_LAYERS",
    "check_features",
    "offers_features",
    "read_features",
]
