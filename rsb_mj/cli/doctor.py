"""``rsb doctor``: print the environment, draw the reference frames, compare them with the
goldens shipped in ``assets/doctor/`` (max abs difference and PSNR per camera) and say what
the verdict means.

Exit status: 0 pass (the frames match the goldens), 1 differs or fails (what to do is
printed; an ``RSB_MJ_CACHE`` that cannot be written fails before any frame is drawn, with
that fix), 2 a missing or damaged golden set (or another usage error).

Example::

    rsb doctor                      # with MUJOCO_GL as set (egl when unset)
    MUJOCO_GL=osmesa rsb doctor --out /tmp/doctor   # also write the frames and diffs
"""

from __future__ import annotations

import argparse
import os
import textwrap
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.cli._flags import add_out
from rsb_mj.doctor.compare import FAIL_PSNR_DB, PASS_MAX_ABS
from rsb_mj.doctor.environment import cores, library_versions, memory_gib
from rsb_mj.errors import RsbError
from rsb_mj.lock import make_folder
from rsb_mj.scene.cache import cache_root
from rsb_mj.scene.fingerprint import renderer_fingerprint


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` subcommand."""
    p = subparsers.add_parser(
        "doctor",
        help="check that this machine renders the benchmark as the shipped goldens show it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--goldens",
        type=Path,
        default=None,
        metavar="DIR",
        help="golden set to compare with (default: the one shipped in assets/doctor)",
    )
    add_out(
        p,
        metavar="DIR",
        help="also write each frame as drawn here, its golden and their difference (x8) "
        "as PNGs into DIR",
    )
    p.add_argument(
        "--maintainer",
        action="store_true",
        help="also say how to regenerate the shipped goldens after an intended scene change "
        "(for rsb_mj's maintainers)",
    )
    p.set_defaults(func=run)


def environment_lines(renderer: Any) -> list[str]:
    """The ``Environment`` block: versions, GL backend and strings, cores and memory."""

    rows = list(library_versions().items())
    chosen = os.environ.get("MUJOCO_GL", "")
    rows.append(("GL backend", f"{renderer.backend} (MUJOCO_GL={chosen or 'unset'})"))
    if renderer.error:
        rows.append(("GL context", f"none: {renderer.error}"))
    else:
        rows += [
            ("GL vendor", renderer.vendor),
            ("GL renderer", renderer.renderer),
            ("GL version", renderer.version),
        ]
    rows.append(
        ("fingerprint", f"{renderer.id} (reference render {renderer.reference_sha256[:12]})")
    )
    usable, total = cores()
    rows.append(("cores", f"{usable} usable of {total}"))
    memory = memory_gib()
    rows.append(
        ("memory", "unknown" if memory is None else f"{memory[0]:.1f} GiB, {memory[1]:.1f} free")
    )
    return ["Environment"] + [f"  {name:<12} {value}" for name, value in rows]


def table_lines(result: Any) -> list[str]:
    """One row per frame: label, ``max abs / PSNR`` per camera, verdict."""
    cameras = result.goldens.cameras
    header = ["frame", *cameras, "verdict"]
    rows = [header]
    for f in result.frames:
        cells = ["-"] * len(cameras) if f.error else [c.cell() for c in f.cameras]
        verdict = f.verdict + (" (other scene, see note)" if f.scene_changed else "")
        rows.append([f.frame.label, *cells, verdict])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return [
        ("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))).rstrip()
        for r in rows
    ]


def write_frames(result: Any, out: Path) -> list[Path]:
    """``<frame>.png`` (drawn here), ``<frame>_golden.png`` and ``<frame>_diff.png``
    (absolute difference x8) into ``out``, cameras side by side."""

    make_folder(out)
    written = []
    for f in result.frames:
        if f.rendered is None:
            continue
        golden = result.goldens.images(f.frame.name)
        cams = result.goldens.cameras
        mine = np.concatenate([f.rendered.images[c] for c in cams], axis=1)
        theirs = np.concatenate([golden[c] for c in cams], axis=1)
        diff = np.clip(np.abs(mine.astype(np.int16) - theirs.astype(np.int16)) * 8, 0, 255)
        for suffix, image in (("", mine), ("_golden", theirs), ("_diff", diff.astype(np.uint8))):
            path = out / f"{f.frame.name}{suffix}.png"
            ok, png = cv2.imencode(".png", image[:, :, ::-1])
            if ok:
                atomic_write_bytes(path, png.tobytes())
                written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    """Run ``rsb doctor``; 0 pass, 1 differs or fails."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.doctor.check import check_frames, renderer_differences
    from rsb_mj.doctor.frames import HEIGHT, QUALITY, WIDTH
    from rsb_mj.doctor.goldens import default_folder, read_goldens

    goldens = read_goldens(args.goldens or default_folder())
    try:
        import mujoco  # noqa: F401 - MuJoCo checks MUJOCO_GL on import
    except RuntimeError as exc:
        raise RsbError(f"{exc}; valid choices: egl, osmesa, glfw") from None
    renderer = renderer_fingerprint()
    lines = ["rsb doctor", "", *environment_lines(renderer)]
    try:
        lines.append(f"  {'cache':<12} {cache_root()}")
    except RsbError as exc:  # no frame can be drawn: say so, not "check the GL backend"
        lines += [f"  {'cache':<12} none: {exc}", "", "verdict: fails"]
        lines += textwrap.wrap(
            f"fails: rsb_mj cannot write its cache folder ({exc}), so no reference frame was "
            "drawn and the GL backend was not checked. Fix the cache, then run rsb doctor "
            "again.",
            width=100,
            subsequent_indent="  ",
            break_on_hyphens=False,
            break_long_words=False,
        )
        print("\n".join(lines))
        return 1
    lines.append("")
    made = goldens.versions.get("mujoco", "?")
    lines.append(f"Goldens: {goldens.folder}, drawn with mujoco {made} by")
    lines.append(f"  {goldens.renderer.describe()} (fingerprint {goldens.renderer.id})")
    differences = renderer_differences(renderer, goldens.renderer)
    if differences:
        lines.append("Renderer: not the goldens'; " + "; ".join(differences))
    else:
        lines.append("Renderer: the goldens' own")
    result = check_frames(goldens, renderer)
    lines += [
        "",
        f"Reference frames ({WIDTH}x{HEIGHT}, {QUALITY} preset): max abs difference (levels "
        f"of 255) / PSNR per camera; pass <= {PASS_MAX_ABS} levels, fails < "
        f"{FAIL_PSNR_DB:g} dB or blank",
        *table_lines(result),
        "",
        f"verdict: {result.verdict}",
    ]
    advice = result.advice(maintainer=args.maintainer)
    lines += [textwrap.fill(p, width=100, subsequent_indent="  ") for p in advice]
    if args.out is not None:
        written = write_frames(result, args.out)
        lines.append(f"wrote {len(written)} images to {args.out}/")
    print("\n".join(lines))
    return 0 if result.verdict == "pass" else 1
