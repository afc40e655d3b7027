"""openpi's wire format: msgpack with numpy arrays, byte for byte as ``openpi-client`` packs it.

``openpi-client`` (0.1.2) pins ``numpy<2``, so rsb_mj speaks the format itself on top of
``msgpack`` (no numpy cap). An array travels as a msgpack map with binary keys::

    {b"__ndarray__": True, b"data": arr.tobytes(), b"dtype": arr.dtype.str, b"shape": arr.shape}

and a numpy scalar as ``{b"__npgeneric__": True, b"data": x.item(), b"dtype": x.dtype.str}``.
Object, void and complex dtypes are refused both ways (openpi never falls back to pickle).
Received envelopes are checked before any array is built: the dtype must be a plain
numeric one (:data:`DECODED_KINDS`: bool, signed and unsigned integers, floats; an
``"|O"`` object array would make numpy read pointers out of the server's bytes), the shape
a list of non-negative integers whose product times the item size is the byte count.
Decoded arrays are read-only views of the received bytes, as in openpi-client
(``unpackb(..., writable=True)`` gives writable copies instead).
This is rsb_mj's one numpy codec for sockets: :mod:`rsb_mj.policies.frames` frames the
same bytes for policy processes.
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


#: numpy dtype kinds a received envelope may carry: bool, signed and unsigned integers,
#: floats. Anything else (object ``O``, void ``V``, complex, strings, dates) is refused.
DECODED_KINDS = frozenset("biuf")


def _dtype(obj: dict[Any, Any], what: str) -> np.dtype:
    """The envelope's dtype, if it is a plain numeric one (see :data:`DECODED_KINDS`)."""
    raw = obj.get(b"dtype")
    if isinstance(raw, bytes):
        raw = raw.decode("ascii", "replace")
    if not isinstance(raw, str):
        raise WireError(f"{what} has dtype {raw!r:.40}, not a dtype string")
    try:
        dtype = np.dtype(raw)
    except (TypeError, ValueError):
        raise WireError(f"{what} has dtype {raw!r:.40}, which numpy does not know") from None
    if dtype.kind not in DECODED_KINDS or dtype.fields is not None or dtype.subdtype:
        raise WireError(
            f"{what} has dtype {raw!r:.40}; only bool, integer and float dtypes are decoded"
        )
    return dtype


def _pack_plain(obj: Any) -> Any:
    """:func:`_pack_array` for plain numeric dtypes only, numpy scalars as Python numbers."""
    if isinstance(obj, np.ndarray | np.generic) and obj.dtype.kind not in DECODED_KINDS:
        raise WireError(f"cannot send dtype {obj.dtype} (only bool, integer and float dtypes)")
    if isinstance(obj, np.generic):
        return obj.item()
    return _pack_array(obj)


def _unpack_array(obj: dict[Any, Any], writable: bool = False) -> Any:
    if b"__ndarray__" in obj:
        dtype = _dtype(obj, "an array envelope")
        data, shape = obj.get(b"data"), obj.get(b"shape")
        if not isinstance(data, bytes):
            raise WireError(f"an array envelope has data of type {type(data).__name__}, not bytes")
        if not isinstance(shape, list | tuple) or not all(type(n) is int and n >= 0 for n in shape):
            raise WireError(f"an array envelope has shape {shape!r:.60}, not non-negative integers")
        count = int(np.prod(shape, dtype=object)) if shape else 1
        if count * dtype.itemsize != len(data):
            raise WireError(
                f"an array envelope of shape {tuple(shape)} and dtype {dtype.str} needs "
                f"{count * dtype.itemsize} bytes, got {len(data)}"
            )
        if writable:
            return np.frombuffer(bytearray(data), dtype).reshape(tuple(shape))
        return np.ndarray(buffer=data, dtype=dtype, shape=tuple(shape))
    if b"__npgeneric__" in obj:
        dtype = _dtype(obj, "a scalar envelope")
        value = obj.get(b"data")
        if not isinstance(value, bool | int | float):
            raise WireError(f"a scalar envelope of dtype {dtype.str} holds {type(value).__name__}")
        if dtype.kind in "iu" and isinstance(value, int):
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:  # numpy < 2 would wrap it, with a warning
                raise WireError(
                    f"a scalar envelope of dtype {dtype.str}: Python integer {value} out of "
                    f"bounds for {dtype.name}"
                )
        try:
            return dtype.type(value)
        except (OverflowError, ValueError) as exc:
            raise WireError(f"a scalar envelope of dtype {dtype.str}: {exc}") from None
    return obj


def packb(obj: Any, *, numpy_scalars: bool = True) -> bytes:
    """``obj`` (dicts, lists, str, numbers, numpy arrays and scalars) as openpi's bytes.

    ``numpy_scalars=False`` sends numpy scalars as plain Python numbers (they come back
    as ``int``, ``float`` or ``bool``), as rsb's policy processes expect.

    Raises:
        WireError: for a value msgpack cannot carry (e.g. an object array, a set).
    """
    try:
        return msgpack.packb(obj, default=_pack_array if numpy_scalars else _pack_plain)
    except WireError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise WireError(f"cannot pack {type(obj).__name__}: {exc}") from None


def unpackb(data: bytes, *, writable: bool = False) -> Any:
    """Decode openpi's bytes (numpy envelopes become arrays and scalars).

    Arrays are read-only views of ``data``, or writable copies with ``writable=True``.

    Raises:
        WireError: for bytes that are not one msgpack object, or an envelope that is
            malformed or carries a refused dtype (see the module docstring).
    """
    try:
        hook = (lambda obj: _unpack_array(obj, True)) if writable else _unpack_array
        return msgpack.unpackb(data, object_hook=hook)
    except WireError as exc:
        raise WireError(
            f"{len(data)} bytes of openpi msgpack holding a refused value: {exc}"
        ) from None
    except (ValueError, TypeError, KeyError, msgpack.UnpackException) as exc:
        head = bytes(data[:16]).hex(" ") if isinstance(data, bytes | bytearray) else "?"
        raise WireError(
            f"{len(data)} bytes that are not openpi msgpack ({type(exc).__name__}: {exc}; "
            f"first bytes {head})"
        ) from None
