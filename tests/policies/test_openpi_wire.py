"""rsb_mj's openpi wire format and image resize against bytes written by openpi-client.

The golden files in ``tests/data/openpi_wire/`` were written once by openpi-client 0.1.2's
own ``msgpack_numpy.packb`` and ``image_tools.resize_with_pad`` (``tools/
openpi_wire_golden.py``); openpi-client itself is not a dependency (it pins numpy<2).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rsb_mj.policies.wire import WireError, packb, unpackb
from rsb_mj.resize import resize_with_pad

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "openpi_wire"


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "openpi_wire_golden", ROOT / "tools" / "openpi_wire_golden.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()
CASES = TOOL.cases()


def _same(a: Any, b: Any) -> bool:
    """Equal values, arrays equal in dtype, shape and bytes; lists vs tuples are equal
    (msgpack has one array type)."""
    if isinstance(a, np.ndarray | np.generic) or isinstance(b, np.ndarray | np.generic):
        return (
            type(a) is type(b)
            and a.dtype == b.dtype
            and np.shape(a) == np.shape(b)
            and np.asarray(a).tobytes() == np.asarray(b).tobytes()
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_packb_matches_openpi_client_byte_for_byte(name):
    assert packb(CASES[name]) == (GOLDEN / f"{name}.msgpack").read_bytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_unpackb_of_openpi_client_bytes_gives_the_values_back(name):
    value = unpackb((GOLDEN / f"{name}.msgpack").read_bytes())
    expected = CASES[name]
    if name == "plain":  # msgpack has one array type: tuples and lists come back as lists
        assert value == [None, True, 1, -1, 2**40, 0.25, "text", b"bytes", [1, [2, []]], {"k": {}}]
        return
    if name == "scalars":  # np.float64 is a Python float: msgpack sends it as one
        assert type(value["f64"]) is float and value["f64"] == -0.1
        expected = {**expected, "f64": -0.1}
    assert _same(value, expected), (value, expected)


def test_the_golden_cases_cover_what_travels():
    obs = unpackb((GOLDEN / "observation.msgpack").read_bytes())
    assert obs["state"].dtype == np.float32 and obs["images"]["cam_high"].shape == (3, 8, 6)
    assert unpackb((GOLDEN / "dtypes.msgpack").read_bytes())["big_endian"].dtype.str == ">f4"


def test_resize_with_pad_matches_openpi_client_pixel_for_pixel():
    expected = unpackb((GOLDEN / "resize_with_pad_240x320_to_224.msgpack").read_bytes())
    got = resize_with_pad(TOOL.test_image(), 224, 224)
    assert got.shape == expected.shape == (224, 224, 3) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            np.array([object()]),
            r"^cannot send dtype object \(object, void and complex are refused\)$",
        ),
        (
            np.complex64(1j),
            r"^cannot send dtype complex64 \(object, void and complex are refused\)$",
        ),
        ({1, 2}, r"^cannot pack set: can not serialize 'set' object$"),
    ],
)
def test_values_the_format_cannot_carry_are_named(value, message):
    with pytest.raises(WireError, match=message):
        packb(value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xc1", r"^1 bytes that are not openpi msgpack \(.+; first bytes c1\)$"),
        (b"\x93\x01\x02", r"^3 bytes that are not openpi msgpack \(.+; first bytes 93 01 02\)$"),
    ],
)  # fmt: skip
def test_bytes_that_are_not_the_format_are_a_wire_error(data, message):
    with pytest.raises(WireError, match=message):
        unpackb(data)


def _envelope(dtype: Any, data: Any = b"AAAAAAAA", shape: Any = (1,)) -> bytes:
    """Raw msgpack of ``{"actions": <array envelope>}`` as a hostile server writes it
    (:func:`packb` itself refuses to write such envelopes)."""
    import msgpack

    env = {b"__ndarray__": True, b"data": data, b"dtype": dtype, b"shape": shape}
    return msgpack.packb({"actions": env})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # issue 23 item 1: an object array would make numpy read pointers out of the bytes
        (_envelope("|O"), r"an array envelope has dtype '\|O'; only bool, integer and float"),
        (_envelope("|V8"), r"an array envelope has dtype '\|V8'; only bool, integer and float"),
        (_envelope("<c16", b"A" * 16), r"an array envelope has dtype '<c16'; only bool, integer"),
        (_envelope("<U2"), r"an array envelope has dtype '<U2'; only bool, integer and float"),
        (_envelope("(2,)<f4"), r"an array envelope has dtype '\(2,\)<f4'; only bool, integer"),
        (_envelope([["a", "<f4"]]),
         r"an array envelope has dtype \[\['a', '<f4'\]\], not a dtype string"),
        (_envelope("<f4", b"\x00" * 3, [2]),
         r"an array envelope of shape \(2,\) and dtype <f4 needs 8 bytes, got 3"),
        (_envelope("<f8", shape=[2**62, 2**62]),
         r"an array envelope of shape \(4611686018427387904, 4611686018427387904\) and dtype <f8 "
         r"needs 170141183460469231731687303715884105728 bytes, got 8"),
        (_envelope("<f8", shape=[-1]), r"an array envelope has shape \[-1\], not non-negative"),
        (_envelope("<f8", shape=[True]), r"an array envelope has shape \[True\], not non-negative"),
        (_envelope("<f8", data="text"), r"an array envelope has data of type str, not bytes"),
        (_envelope("nonsense"), r"an array envelope has dtype 'nonsense', which numpy does not"),
        (packb({"x": {b"__npgeneric__": True, b"data": b"AAAA", b"dtype": "|O"}}),
         r"a scalar envelope has dtype '\|O'; only bool, integer and float"),
        (packb({"x": {b"__npgeneric__": True, b"data": "x", b"dtype": "<f4"}}),
         r"a scalar envelope of dtype <f4 holds str"),
        (packb({"x": {b"__npgeneric__": True, b"data": 300, b"dtype": "|u1"}}),
         r"a scalar envelope of dtype \|u1: "),
    ],
)  # fmt: skip
def test_hostile_envelopes_are_refused_before_any_array_is_built(data, message):
    with pytest.raises(
        WireError, match=r"^\d+ bytes of openpi msgpack holding a refused value: " + message
    ):
        unpackb(data)


def test_the_numeric_dtypes_still_decode():
    values = {
        "b": np.array([True, False]),
        "i1": np.arange(3, dtype=np.int8),
        "u8": np.arange(2, dtype=np.uint64),
        "f2": np.ones((2, 0), np.float16),
        ">f4": np.arange(4, dtype=">f4").reshape(2, 2),
        "scalar": np.int16(-7),
    }
    got = unpackb(packb(values))
    assert all(_same(got[k], v) for k, v in values.items()), got


def test_openpi_client_is_not_a_dependency_and_numpy_is_not_capped():
    from importlib.metadata import requires

    reqs = requires("rsb_mj") or []
    core = [r for r in reqs if "extra ==" not in r]
    assert not any(r.lower().startswith("openpi-client") for r in reqs)
    assert [r for r in core if r.startswith("numpy")] == ["numpy<3,>=1.26"]
    assert {r.split(">")[0].split("=")[0] for r in core} >= {"msgpack", "websockets", "pillow"}


def test_one_resize_serves_the_client_and_the_legibility_checks():
    from rsb_mj.policies import openpi
    from rsb_mj.scene import legibility

    assert openpi.resize_with_pad is resize_with_pad
    image = TOOL.test_image()
    got, frame = legibility.resize_with_pad(image, 224)
    np.testing.assert_array_equal(got, resize_with_pad(image, 224, 224))
    assert frame == (224 / 320, 0.0, 28.0)  # 320x240 -> 224x168, 28 px of black above
    assert legibility.resize_with_pad(got, 224)[1] == (1.0, 0.0, 0.0)
