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

from rsb_mj.policies.openpi import resize_with_pad
from rsb_mj.policies.wire import WireError, packb, unpackb

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
        (packb({b"__ndarray__": True, b"data": b"\x00" * 3, b"dtype": "<f4", b"shape": [2]}),
         r"^\d+ bytes that are not openpi msgpack \(.*buffer is too small.*\)$"),
    ],
)  # fmt: skip
def test_bytes_that_are_not_the_format_are_a_wire_error(data, message):
    with pytest.raises(WireError, match=message):
        unpackb(data)


def test_openpi_client_is_not_a_dependency_and_numpy_is_not_capped():
    from importlib.metadata import requires

    reqs = requires("rsb_mj") or []
    core = [r for r in reqs if "extra ==" not in r]
    assert not any(r.lower().startswith("openpi-client") for r in reqs)
    assert [r for r in core if r.startswith("numpy")] == ["numpy<3,>=1.26"]
    assert {r.split(">")[0].split("=")[0] for r in core} >= {"msgpack", "websockets", "pillow"}
