"""Frames between rsb and a policy process: one :mod:`rsb_mj.policies.wire` message each.

One frame carries one message (see :mod:`rsb_mj.policies.child` for the message types)::

    magic   4 bytes   b"RSBF"
    length  u64 LE    length of the body [bytes]
    body    length    the message in openpi's msgpack-numpy format (:func:`wire.packb`)

This module owns the framing only; the numpy codec is :mod:`rsb_mj.policies.wire`, the
same one openpi servers speak. Values a message may hold: ``None``, bools, ints, floats
(NaN and infinities included), strings, lists (a tuple arrives as a list), dicts, numpy
arrays of plain numeric dtypes (bool, signed and unsigned integers, floats) and numpy
scalars of those dtypes (sent as plain Python numbers). Decoding never builds anything
else: no pickle, no object arrays, each array's byte count checked against its dtype and
shape, and a frame larger than :data:`MAX_BODY_BYTES` is refused before it is read.
Decoded arrays are writable copies (a policy may change its observation in place).
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from rsb_mj.errors import RsbError
from rsb_mj.policies.wire import WireError, packb, unpackb

MAGIC = b"RSBF"
_PREFIX = struct.Struct("<4sQ")
#: Largest body a receiver reads [bytes] (1 GiB: far above any observation).
MAX_BODY_BYTES = 1 << 30


class FrameError(RsbError):
    """Bytes that are not a frame, a value a frame cannot carry, or a closed connection."""


class Closed(FrameError):
    """The other side closed the connection (end of file before or inside a frame)."""


def encode(message: dict[str, Any]) -> bytes:
    """One frame holding ``message``: the prefix, then the msgpack body.

    Raises:
        FrameError: for a value a frame cannot carry (see the module docstring).
    """
    try:
        body = packb(message, numpy_scalars=False)
    except WireError as exc:
        raise FrameError(str(exc)) from None
    return _PREFIX.pack(MAGIC, len(body)) + body


def decode(body: bytes | bytearray) -> dict[str, Any]:
    """The message of a frame's body (see the module docstring).

    Raises:
        FrameError: for a body that is not one msgpack map with a string ``type``, or an
            array outside the allowed dtypes or whose bytes do not fit its shape.
    """
    try:
        message = unpackb(body, writable=True)
    except WireError as exc:
        raise FrameError(f"frame body: {exc}") from None
    if not isinstance(message, dict):
        raise FrameError(f"a frame's body is a {type(message).__name__}, not a map")
    if not isinstance(message.get("type"), str):
        raise FrameError("a message needs a string 'type'")
    return message


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    """Send ``message`` as one frame.

    Raises:
        FrameError: for a value a frame cannot carry; Closed when the peer is gone.
    """
    frame = encode(message)
    try:
        sock.sendall(frame)
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
    magic, length = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise FrameError(f"not a frame (first bytes {bytes(prefix[:8]).hex(' ')})")
    if length > MAX_BODY_BYTES:
        raise FrameError(f"frame of {length} body bytes refused (at most {MAX_BODY_BYTES})")
    body = bytearray(length)
    _read(sock, memoryview(body), "body")
    return decode(body)
