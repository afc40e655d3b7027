"""Regenerate the golden reference images ``rsb doctor`` compares with (``assets/doctor/``).

Draws every entry of :data:`rsb_mj.doctor.frames.REFERENCE_FRAMES` with this machine's
renderer and writes one PNG per frame (three cameras side by side) and ``goldens.json`` (the
renderer fingerprint, versions and each frame's scene hash). Run it when a scene change is
intended (``rsb doctor`` then marks frames "other scene, see note"; ``rsb doctor
--maintainer`` points here), on the renderer the goldens were drawn
with (Mesa's llvmpipe through EGL: a machine without a GPU and ``MUJOCO_GL=egl``), and
commit the result. Overwriting goldens of another renderer needs ``--renderer-change``: the
goldens define what every other machine is compared with.

Usage: ``python tools/make_doctor_goldens.py [--out DIR] [--renderer-change]``.
Exit status: 0 written, 2 refused (another renderer's goldens) or a write error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Write the golden set; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="make_doctor_goldens.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "assets" / "doctor",
        metavar="DIR",
        help="golden folder (default: assets/doctor of this checkout)",
    )
    parser.add_argument(
        "--renderer-change",
        action="store_true",
        help="overwrite goldens that another renderer drew",
    )
    args = parser.parse_args(argv)

    from rsb_mj.doctor.environment import library_versions
    from rsb_mj.doctor.frames import REFERENCE_FRAMES, render_frame
    from rsb_mj.doctor.goldens import MANIFEST, read_goldens, write_goldens
    from rsb_mj.errors import RsbError
    from rsb_mj.scene.fingerprint import renderer_fingerprint

    renderer = renderer_fingerprint()
    if renderer.error:
        print(f"make_doctor_goldens: no GL context ({renderer.error})", file=sys.stderr)
        return 2
    if (args.out / MANIFEST).is_file() and not args.renderer_change:
        try:
            held = read_goldens(args.out).renderer
        except RsbError:
            held = renderer  # a damaged set is replaced
        if held.id != renderer.id:
            print(
                f"make_doctor_goldens: {args.out} holds goldens drawn by {held.describe()}; "
                f"this machine renders with {renderer.describe()}. Pass --renderer-change to "
                "replace them (every machine is then compared with this renderer).",
                file=sys.stderr,
            )
            return 2
    try:
        rendered = [render_frame(frame) for frame in REFERENCE_FRAMES]
        written = write_goldens(args.out, rendered, renderer, library_versions())
    except RsbError as exc:
        print(f"make_doctor_goldens: {exc}", file=sys.stderr)
        return 2
    size = sum(path.stat().st_size for path in written)
    print(f"renderer: {renderer.describe()} (fingerprint {renderer.id})")
    for path in written:
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"{len(written)} files, {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
