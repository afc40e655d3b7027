"""openpi's wire format: msgpack with numpy arrays, byte for byte as ``openpi-client`` packs it.

``openpi-client`` (0.1.2) pins ``numpy<2``, so rsb_mj speaks the format itself on top of
``msgpack`` (no numpy cap). An array travels as a msgpack map with binary keys::

    {b"__ndarray__": True, b"data": arr.tobytes(), b"dtype": arr.dtype.str, b"shape": arr.shape}

and a numpy scalar as ``{b"__npgeneric__": True, b"data": x.item(), b"dtype": x.dtype.str}``.
Object, void and complex dtypes are refused (openpi never falls back to pickle). Decoded
arrays are read-only views of the received bytes, as in openpi-client.
``tests/policies/test_openpi_wire.py`` checks :func:`packb` against golden bytes written by
openpi-client's own packer (``tools/openpi_wire_golden.py``).
"""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np

from rsb_mj.errors import RsbError


class WireError(RsbError):
    """A message that is not openpi's msgpack format (or a value it cannot carry)."""


def _pack_array(obj: Any) -> Any:
    if isinstance(obj, np.ndarray | np.generic) and obj.dtype.kind in ("V", "O", "c"):
        raise WireError(f"cannot send dtype {obj.dtype} (object, void and complex are refused)")
    if isinstance(obj, np.ndarray):
        return {
            b"__ndarray__": True,
            b"data": obj.tobytes(),
            b"dtype": obj.dtype.str,
            b"shape": obj.shape,
        }
    if isinstance(obj, np.generic):
        return {b"__npgeneric__": True, b"data": obj.item(), b"dtype": obj.dtype.str}
    return obj


def _unpack_array(obj: dict[Any, Any]) -> Any:
    if b"__ndarray__" in obj:
        return np.ndarray(
            buffer=obj[b"data"], dtype=np.dtype(obj[b"dtype"]), shape=tuple(obj[b"shape"])
        )
    if b"__npgeneric__" in obj:
        return np.dtype(obj[b"dtype"]).type(obj[b"data"])
    return obj


def packb(obj: Any) -> bytes:
    """``obj`` (dicts, lists, str, numbers, numpy arrays and scalars) as openpi's bytes.

    Raises:
        WireError: for a value msgpack cannot carry (e.g. an object array, a set).
    """
    try:
        return msgpack.packb(obj, default=_pack_array)
    except WireError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise WireError(f"cannot pack {type(obj).__name__}: {exc}") from None


def unpackb(data: bytes) -> Any:
    """Decode openpi's bytes (numpy envelopes become arrays and scalars).

    Raises:
        WireError: for bytes that are not one msgpack object or a malformed envelope.
    """
    try:
        return msgpack.unpackb(data, object_hook=_unpack_array)
    except (ValueError, TypeError, KeyError, msgpack.UnpackException) as exc:
        head = bytes(data[:16]).hex(" ") if isinstance(data, bytes | bytearray) else "?"
        raise WireError(
            f"{len(data)} bytes that are not openpi msgpack ({type(exc).__name__}: {exc}; "
            f"first bytes {head})"
        ) from None
