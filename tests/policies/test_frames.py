"""Frames between rsb and a policy process: exact round trips, and what is refused."""

from __future__ import annotations

import json
import math
import socket
import struct
import threading

import numpy as np
import pytest

from rsb_mj.policies import frames


def _roundtrip(message):
    a, b = socket.socketpair()
    with a, b:
        sender = threading.Thread(target=frames.send, args=(a, message))
        sender.start()  # a frame larger than the socket's buffer needs a reader meanwhile
        got = frames.recv(b)
        sender.join()
        return got


def test_a_message_comes_back_with_its_arrays_tuples_and_dollar_keys():
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
    assert got["info"]["candidates"] == ("block_a", "block_b")
    assert got["info"]["signals"]["in_zone"].tolist() == [[True, False]]
    assert got["info"]["signals"]["lift"].shape == (0, 2)
    assert math.isnan(got["info"]["sim"].pop("ratio"))
    assert got["info"]["sim"] == {"quality": "fast", "light": None, "n": 3}
    assert got["info"]["$odd"] == {"$nd": 0}  # a user's "$" keys are not references
    assert got["scalar"] == 0.5 and isinstance(got["scalar"], float)
    assert got["zero_d"].shape == () and int(got["zero_d"]) == 7
    assert got["big_endian"].dtype.str == "<f8" and got["big_endian"].tolist() == [1.5, 2.5]
    got["obs"]["state"][0] = 9.0  # writable views of the frame's own buffer
    assert message["obs"]["state"][0] == -1.0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([object()]), r"cannot send a object array; plain numeric dtypes only"),
        (np.array([1j]), r"cannot send a complex128 array"),
        (np.array(["a"]), r"cannot send a <U1 array"),
        ({1: 2}, r"cannot send a dict with non-string keys"),
        ({1, 2}, r"cannot send a set"),
        (b"raw", r"cannot send a bytes"),
        (np.complex64(1), r"cannot send a numpy complex64 scalar"),
    ],
)
def test_values_a_frame_cannot_carry_are_refused(value, message):
    with pytest.raises(frames.FrameError, match=message):
        frames.encode({"type": "x", "value": value})


def _frame(header: dict, payload: bytes = b"") -> tuple[bytes, bytearray]:
    return json.dumps(header).encode(), bytearray(payload)


@pytest.mark.parametrize(
    ("header", "payload", "message"),
    [
        (  # an object array whose pointers would come from the peer's bytes
            {"type": "action", "action": {"$nd": 0}, "$arrays": [["|O", [2], 0]]},
            b"A" * 16,
            r"array 0: dtype '\|O' refused; plain numeric dtypes only",
        ),
        (
            {"type": "action", "action": {"$nd": 0}, "$arrays": [["<f8", [14], 0]]},
            b"\0" * 8,
            r"array 0: <f8 \(14,\) needs bytes 0..112, the payload has 8",
        ),
        (
            {"type": "action", "action": {"$nd": 1}, "$arrays": []},
            b"",
            r"array reference 1 names no array of the frame",
        ),
        (
            {"type": "action", "$arrays": [["<f8", [-1], 0]]},
            b"",
            r"array 0: malformed shape \[-1\] or offset 0",
        ),
        ({"action": 1}, b"", r"a message needs a string 'type'"),
    ],
)
def test_malformed_frames_are_refused(header, payload, message):
    with pytest.raises(frames.FrameError, match=message):
        frames.decode(*_frame(header, payload))


def test_a_frame_that_is_not_json_or_not_an_object_is_refused():
    with pytest.raises(frames.FrameError, match=r"frame header is not JSON"):
        frames.decode(b"{nope", bytearray())
    with pytest.raises(frames.FrameError, match=r"frame header is a JSON list, not an object"):
        frames.decode(b"[1]", bytearray())


def test_bad_magic_oversized_and_truncated_frames():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"HTTP/1.1 200 OK\r\n")
        with pytest.raises(frames.FrameError, match=r"not a frame \(first bytes 48 54 54 50"):
            frames.recv(b)
    a, b = socket.socketpair()
    with a, b:  # refused from the prefix alone, before reading 2 GiB
        a.sendall(struct.pack("<4sIQ", frames.MAGIC, 10, 2 << 30))
        with pytest.raises(frames.FrameError, match=r"frame of 10 header and 2147483648 payload"):
            frames.recv(b)
    a, b = socket.socketpair()
    with b:
        a.sendall(frames.encode({"type": "x"})[0][:-2])
        a.close()
        with pytest.raises(frames.Closed, match=r"closed the connection inside a frame \(header\)"):
            frames.recv(b)
    a, b = socket.socketpair()
    with b:
        a.close()
        with pytest.raises(frames.Closed, match=r"^the other side closed the connection$"):
            frames.recv(b)
