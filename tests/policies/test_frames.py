"""Frames between rsb and a policy process: exact round trips, the bytes, what is refused."""

from __future__ import annotations

import math
import socket
import struct
import threading

import msgpack
import numpy as np
import pytest

from rsb_mj.policies import frames
from rsb_mj.policies.wire import packb


def _roundtrip(message):
    a, b = socket.socketpair()
    with a, b:
        sender = threading.Thread(target=frames.send, args=(a, message))
        sender.start()  # a frame larger than the socket's buffer needs a reader meanwhile
        got = frames.recv(b)
        sender.join()
        return got


def test_a_message_comes_back_with_its_arrays_and_dollar_keys():
    images = {c: np.arange(224 * 224 * 3, dtype=np.uint8).reshape(224, 224, 3) for c in "abc"}
    message = {
        "type": "act",
        "obs": {"state": np.linspace(-1, 1, 14), "images": images},
        "info": {
            "candidates": ("block_a", "block_b"),
            "signals": {"in_zone": np.array([[True, False]]), "lift": np.zeros((0, 2))},
            "sim": {"quality": "fast", "light": None, "ratio": math.nan, "n": 3},
            "$odd": {"$nd": 0},
        },
        "scalar": np.float32(0.5),
        "zero_d": np.array(7, dtype=np.int16),
        "big_endian": np.array([1.5, 2.5], dtype=">f8"),
    }
    got = _roundtrip(message)
    np.testing.assert_array_equal(got["obs"]["state"], message["obs"]["state"])
    for c in "abc":
        assert got["obs"]["images"][c].dtype == np.uint8
        np.testing.assert_array_equal(got["obs"]["images"][c], images[c])
    assert got["info"]["candidates"] == ["block_a", "block_b"]  # msgpack has no tuples
    assert got["info"]["signals"]["in_zone"].tolist() == [[True, False]]
    assert got["info"]["signals"]["lift"].shape == (0, 2)
    assert math.isnan(got["info"]["sim"].pop("ratio"))
    assert got["info"]["sim"] == {"quality": "fast", "light": None, "n": 3}
    assert got["info"]["$odd"] == {"$nd": 0}  # a user's "$" keys are plain keys
    assert got["scalar"] == 0.5 and type(got["scalar"]) is float
    assert got["zero_d"].shape == () and int(got["zero_d"]) == 7
    assert got["big_endian"].dtype.str == ">f8" and got["big_endian"].tolist() == [1.5, 2.5]
    got["obs"]["state"][0] = 9.0  # writable copies
    assert message["obs"]["state"][0] == -1.0


def test_the_body_is_openpi_msgpack_numpy():
    frame = frames.encode({"type": "action", "action": np.array([1.5], dtype="<f8")})
    assert frame[:4] == frames.MAGIC
    (length,) = struct.unpack("<Q", frame[4:12])
    assert length == len(frame) - 12
    assert frame[12:] == packb({"type": "action", "action": np.array([1.5])})
    body = msgpack.unpackb(frame[12:])
    assert body["action"] == {
        b"__ndarray__": True,
        b"data": struct.pack("<d", 1.5),
        b"dtype": "<f8",
        b"shape": [1],
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([object()]), r"cannot send dtype object"),
        (np.array([1j]), r"cannot send dtype complex128"),
        (np.array(["a"]), r"cannot send dtype <U1 \(only bool, integer and float dtypes\)"),
        ({1, 2}, r"cannot pack dict: can not serialize 'set' object"),
        (np.complex64(1), r"cannot send dtype complex64"),
    ],
)
def test_values_a_frame_cannot_carry_are_refused(value, message):
    with pytest.raises(frames.FrameError, match=message):
        frames.encode({"type": "x", "value": value})


def _envelope(dtype: str, shape: list, data: bytes) -> dict:
    return {b"__ndarray__": True, b"data": data, b"dtype": dtype, b"shape": shape}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (  # an object array whose pointers would come from the peer's bytes
            {"type": "action", "action": _envelope("|O", [2], b"A" * 16)},
            r"dtype '\|O'; only bool, integer and float dtypes are decoded",
        ),
        (
            {"type": "action", "action": _envelope("<f8", [14], b"\0" * 8)},
            r"shape \(14,\) and dtype <f8 needs 112 bytes, got 8",
        ),
        (
            {"type": "action", "action": _envelope("<f8", [-1], b"")},
            r"has shape \[-1\], not non-negative integers",
        ),
        ({"action": 1}, r"a message needs a string 'type'"),
        ([1], r"a frame's body is a list, not a map"),
    ],
)
def test_malformed_frames_are_refused(body, message):
    with pytest.raises(frames.FrameError, match=message):
        frames.decode(msgpack.packb(body))


def test_a_body_that_is_not_msgpack_is_refused():
    with pytest.raises(frames.FrameError, match=r"frame body: 1 bytes that are not openpi msgpack"):
        frames.decode(b"\xc1")


def test_bad_magic_oversized_and_truncated_frames():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"HTTP/1.1 200 OK\r\n")
        with pytest.raises(frames.FrameError, match=r"not a frame \(first bytes 48 54 54 50"):
            frames.recv(b)
    a, b = socket.socketpair()
    with a, b:  # refused from the prefix alone, before reading 2 GiB
        a.sendall(struct.pack("<4sQ", frames.MAGIC, 2 << 30))
        with pytest.raises(frames.FrameError, match=r"frame of 2147483648 body bytes refused"):
            frames.recv(b)
    a, b = socket.socketpair()
    with b:
        a.sendall(frames.encode({"type": "x"})[:-2])
        a.close()
        with pytest.raises(frames.Closed, match=r"closed the connection inside a frame \(body\)"):
            frames.recv(b)
    a, b = socket.socketpair()
    with b:
        a.close()
        with pytest.raises(frames.Closed, match=r"^the other side closed the connection$"):
            frames.recv(b)
