"""Binary frames between rsb and a policy process: a JSON header and raw numeric arrays.

One frame carries one message (see :mod:`rsb_mj.policies.child` for the message types)::

    magic   4 bytes   b"RSBF"
    hlen    u32 LE    length of the header [bytes]
    plen    u64 LE    length of the payload [bytes]
    header  hlen      UTF-8 JSON object: the message, arrays replaced by {"$nd": i}, and
                      "$arrays": [[dtype, shape, offset], ...] for array i
    payload plen      the arrays' bytes (C order, little-endian), each at its offset

Values a message may hold: ``None``, bools, ints, floats (NaN and infinities included),
strings, lists, tuples (``{"$tuple": [...]}``), dicts with string keys (a dict with a key
that starts with ``$`` travels as ``{"$dict": [[key, value], ...]}``), numpy arrays and
scalars of plain numeric dtypes (:data:`DTYPES`: bool, signed and unsigned integers,
float16/32/64). Nothing else is sent, and decoding never builds anything else: no pickle,
no object arrays, each array's byte count checked against its dtype and shape, and a frame
larger than :data:`MAX_HEADER_BYTES` / :data:`MAX_PAYLOAD_BYTES` is refused before it is
read. Decoded arrays are writable views of the frame's own buffer (no copy; the next frame
gets a new buffer).

An observation of three 224x224 RGB images is one header of a few hundred bytes plus
451,584 payload bytes, sent with one ``sendmsg`` (no concatenation) and received with
``recv_into`` (no intermediate copy).
"""

from __future__ import annotations

import json
import math
import socket
import struct
from typing import Any

import numpy as np

from rsb_mj.errors import RsbError

MAGIC = b"RSBF"
_PREFIX = struct.Struct("<4sIQ")
#: Largest header a receiver reads [bytes].
MAX_HEADER_BYTES = 16 << 20
#: Largest payload a receiver reads [bytes] (1 GiB: far above any observation).
MAX_PAYLOAD_BYTES = 1 << 30
#: Most arrays one frame may carry.
MAX_ARRAYS = 100_000
#: The dtypes a frame carries (``dtype.str``; big-endian arrays are sent little-endian).
DTYPES = frozenset(
    ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"]
)
_ALIGN = 8


class FrameError(RsbError):
    """Bytes that are not a frame, a value a frame cannot carry, or a closed connection."""


class Closed(FrameError):
    """The other side closed the connection (end of file before or inside a frame)."""


def _encode(value: Any, arrays: list[np.ndarray]) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, np.ndarray):
        arrays.append(_plain(value))
        return {"$nd": len(arrays) - 1}
    if isinstance(value, np.generic):
        if value.dtype.str.replace(">", "<") not in DTYPES:
            raise FrameError(f"cannot send a numpy {value.dtype} scalar; plain numbers only")
        return _encode(value.item(), arrays)
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise FrameError("cannot send a dict with non-string keys")
        if any(k.startswith("$") for k in value):
            return {"$dict": [[k, _encode(v, arrays)] for k, v in value.items()]}
        return {k: _encode(v, arrays) for k, v in value.items()}
    raise FrameError(f"cannot send a {type(value).__name__}")


def _plain(array: np.ndarray) -> np.ndarray:
    """``array`` as a C-contiguous little-endian array of an allowed dtype."""
    dtype = array.dtype
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
    if dtype.str not in DTYPES:
        raise FrameError(f"cannot send a {array.dtype} array; plain numeric dtypes only")
    return np.asarray(array).astype(dtype, order="C", copy=False)  # 0-d stays 0-d


def encode(message: dict[str, Any]) -> list[bytes | memoryview]:
    """The pieces of one frame holding ``message`` (send them in order, e.g. with
    :func:`send`): the prefix and header, then each array's bytes and padding.

    Raises:
        FrameError: for a value a frame cannot carry (see the module docstring).
    """
    arrays: list[np.ndarray] = []
    body = _encode(message, arrays)
    table, pieces, offset = [], [], 0
    for array in arrays:
        table.append([array.dtype.str, list(array.shape), offset])
        if array.nbytes:
            pieces.append(memoryview(array).cast("B"))
        pad = -array.nbytes % _ALIGN
        if pad:
            pieces.append(b"\0" * pad)
        offset += array.nbytes + pad
    body["$arrays"] = table
    header = json.dumps(body, separators=(",", ":")).encode()
    return [_PREFIX.pack(MAGIC, len(header), offset) + header, *pieces]


def _decode(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key == "$nd":
            if not isinstance(inner, int) or not 0 <= inner < len(arrays):
                raise FrameError(f"array reference {inner!r} names no array of the frame")
            return arrays[inner]
        if key == "$tuple" and isinstance(inner, list):
            return tuple(_decode(v, arrays) for v in inner)
        if key == "$dict" and isinstance(inner, list):
            pairs = [p for p in inner if isinstance(p, list) and len(p) == 2]
            if len(pairs) != len(inner) or not all(isinstance(k, str) for k, _ in pairs):
                raise FrameError("a $dict must hold [string key, value] pairs")
            return {k: _decode(v, arrays) for k, v in pairs}
    return {k: _decode(v, arrays) for k, v in value.items()}


def _arrays(table: Any, payload: bytearray) -> list[np.ndarray]:
    if not isinstance(table, list) or len(table) > MAX_ARRAYS:
        raise FrameError("a frame's $arrays must be a list of [dtype, shape, offset]")
    out = []
    for i, entry in enumerate(table):
        if not (isinstance(entry, list) and len(entry) == 3):
            raise FrameError(f"array {i}: expected [dtype, shape, offset], got {entry!r:.80}")
        dtype, shape, offset = entry
        if dtype not in DTYPES:
            raise FrameError(
                f"array {i}: dtype {dtype!r} refused; plain numeric dtypes only "
                f"({', '.join(sorted(DTYPES))})"
            )
        if not (
            isinstance(shape, list)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
            and isinstance(offset, int)
            and offset >= 0
        ):
            raise FrameError(f"array {i}: malformed shape {shape!r:.80} or offset {offset!r:.40}")
        count = math.prod(shape)
        nbytes = count * np.dtype(dtype).itemsize
        if offset + nbytes > len(payload):
            raise FrameError(
                f"array {i}: {dtype} {tuple(shape)} needs bytes {offset}..{offset + nbytes}, "
                f"the payload has {len(payload)}"
            )
        out.append(np.frombuffer(payload, dtype, count, offset).reshape(shape))
    return out


def decode(header: bytes, payload: bytearray) -> dict[str, Any]:
    """The message of a frame's header and payload (see the module docstring).

    Raises:
        FrameError: for a header that is not a JSON object, an array outside the allowed
            dtypes, or one whose bytes do not fit the payload.
    """
    try:
        body = json.loads(header)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FrameError(f"frame header is not JSON ({exc})") from None
    if not isinstance(body, dict):
        raise FrameError(f"frame header is a JSON {type(body).__name__}, not an object")
    arrays = _arrays(body.pop("$arrays", []), payload)
    message = _decode(body, arrays)
    if not isinstance(message.get("type"), str):
        raise FrameError("a message needs a string 'type'")
    return message


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    """Send ``message`` as one frame (scatter-gather, resuming after partial sends).

    Raises:
        FrameError: for a value a frame cannot carry; Closed when the peer is gone.
    """
    pieces = [memoryview(p).cast("B") for p in encode(message)]
    try:
        while pieces:
            sent = sock.sendmsg(pieces)
            while pieces and sent >= len(pieces[0]):
                sent -= len(pieces[0])
                pieces.pop(0)
            if pieces and sent:
                pieces[0] = pieces[0][sent:]
    except (BrokenPipeError, ConnectionResetError) as exc:
        raise Closed(f"the other side closed the connection ({exc.strerror})") from None


def _read(sock: socket.socket, view: memoryview, what: str) -> None:
    got = 0
    while got < len(view):
        try:
            n = sock.recv_into(view[got:])
        except ConnectionResetError:
            n = 0
        if n == 0:
            raise Closed(
                "the other side closed the connection"
                + (f" inside a frame ({what})" if got or what != "prefix" else "")
            )
        got += n


def recv(sock: socket.socket) -> dict[str, Any]:
    """Receive one frame's message.

    Raises:
        Closed: at end of file; FrameError: for bytes that are not a frame.
    """
    prefix = bytearray(_PREFIX.size)
    _read(sock, memoryview(prefix), "prefix")
    magic, hlen, plen = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise FrameError(f"not a frame (first bytes {bytes(prefix[:8]).hex(' ')})")
    if hlen > MAX_HEADER_BYTES or plen > MAX_PAYLOAD_BYTES:
        raise FrameError(
            f"frame of {hlen} header and {plen} payload bytes refused (at most "
            f"{MAX_HEADER_BYTES} and {MAX_PAYLOAD_BYTES})"
        )
    header = bytearray(hlen)
    _read(sock, memoryview(header), "header")
    payload = bytearray(plen)
    _read(sock, memoryview(payload), "payload")
    return decode(bytes(header), payload)
