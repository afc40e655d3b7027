"""Golden bytes of openpi's wire format, written by openpi-client's own packer.

rsb_mj speaks openpi's msgpack + numpy format itself (:mod:`rsb_mj.policies.wire`) because
``openpi-client`` pins ``numpy<2``. This script, run once in an environment that has
``openpi-client`` (``pip install openpi-client==0.1.2``, numpy 1.x), writes what its
``msgpack_numpy.packb`` makes of every case in :func:`cases`, and what its
``image_tools.resize_with_pad`` makes of a test image, to ``tests/data/openpi_wire/``;
``tests/policies/test_openpi_wire.py`` checks rsb_mj against those bytes.

Usage: ``python tools/openpi_wire_golden.py [--out DIR] [--check]`` (``--check`` compares
with the files instead of writing them; exit 1 on a difference).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "openpi_wire"


def test_image() -> np.ndarray:
    """A deterministic 240x320 RGB uint8 image (no random generator: same on every numpy)."""
    i, j, c = np.meshgrid(np.arange(240), np.arange(320), np.arange(3), indexing="ij")
    return ((i * 7 + j * 13 + c * 29 + (i * j) // 5) % 256).astype(np.uint8)


def cases() -> dict[str, Any]:
    """Name -> a value as rsb_mj and openpi servers exchange them."""
    img = test_image()
    chw = np.ascontiguousarray(img[:8, :6].transpose(2, 0, 1))
    return {
        "metadata": {
            "policy": "pi0_aloha",
            "action_horizon": 25,
            "reset_pose": [0, -1.5, 1.5, 0, 0, 0],
        },
        "observation": {
            "state": (np.arange(14, dtype=np.float32) / 7.0 - 1.0),
            "images": {"cam_high": chw, "cam_left_wrist": chw[:, ::-1], "cam_right_wrist": chw},
            "prompt": "what is 2 + 2? put the block of the correct answer in the gray zone",
        },
        "reply": {
            "actions": np.linspace(-1.0, 1.0, 5 * 14).reshape(5, 14),
            "server_timing": {"infer_ms": 12.5, "prev_total_ms": 40.25},
        },
        "scalars": {
            "f32": np.float32(1.5),
            "f64": np.float64(-0.1),
            "i64": np.int64(-3),
            "u8": np.uint8(200),
            "bool": np.bool_(True),
        },
        "dtypes": {
            "f16": np.array([0.5, -2.0], dtype=np.float16),
            "i8": np.array([-128, 127], dtype=np.int8),
            "u16": np.array([[1, 2], [3, 65535]], dtype=np.uint16),
            "i32": np.arange(6, dtype=np.int32).reshape(2, 3),
            "bool": np.array([True, False, True]),
            "big_endian": np.array([1.0, 2.0], dtype=">f4"),
            "zero_d": np.array(3.25),
            "empty": np.zeros((0, 14), dtype=np.float32),
            "strided": np.arange(10.0)[::3],
            "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        },
        "plain": [None, True, 1, -1, 2**40, 0.25, "text", b"bytes", [1, [2, []]], {"k": {}}],
    }


def golden_bytes() -> dict[str, bytes]:
    """File name -> bytes, from openpi-client (must be importable)."""
    from openpi_client import image_tools, msgpack_numpy

    out = {f"{name}.msgpack": msgpack_numpy.packb(value) for name, value in cases().items()}
    resized = image_tools.resize_with_pad(test_image(), 224, 224)
    out["resize_with_pad_240x320_to_224.msgpack"] = msgpack_numpy.packb(resized)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write (or ``--check``) the golden files; 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    from rsb_mj.atomic import atomic_write_bytes

    files = golden_bytes()
    bad = 0
    for name, data in sorted(files.items()):
        path = args.out / name
        if args.check:
            same = path.exists() and path.read_bytes() == data
            bad += not same
            print(f"{'ok  ' if same else 'DIFF'} {path} ({len(data)} bytes)")
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, data)
            print(f"wrote {path} ({len(data)} bytes)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
