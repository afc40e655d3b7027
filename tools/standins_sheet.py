"""Contact sheet of the stand-in objects: each alone on the Aloha's table, seen by the head
camera as the policy sees it (224x224), in one PNG grid with the category names; with
``--assets DIR``, each stand-in beside the original built from the user's own LIBERO /
VLA-Arena asset folder (the originals are not shipped), so the comparison can be redone.

Usage::

    PYTHONPATH=$PWD python tools/standins_sheet.py OUT.png [--category NAME ...] [--columns N]
    PYTHONPATH=$PWD python tools/standins_sheet.py OUT.png --assets DIR [--category NAME ...]

Every category of :data:`rsb_mj.scene.categories.standins.STANDINS` and the goal scenes'
``milk`` (:data:`~rsb_mj.scene.categories.standins.GOAL_STANDINS`) by default (the sheet in
docs/objects.md); ``--category`` renders only the ones named. Each tile is the 320x240 head
image of a scene with the one object at the table point (0, 0.08) m, resized with openpi's
``resize_with_pad`` to 224x224, with the name printed under it. With ``--assets`` the default
is every stand-in the folder has an original of; each cell is two tiles, the stand-in and the
original (its MJCF as the folder has it, in its own frame: LIBERO's long objects lie along y
where the stand-ins lie along x), or a grey tile where the folder has none.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rsb_mj.scene.gl import choose_gl_backend

choose_gl_backend()  # before MuJoCo is imported: EGL or OSMesa on a headless machine

import cv2  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from rsb_mj.atomic import atomic_write_bytes  # noqa: E402
from rsb_mj.errors import RsbError  # noqa: E402
from rsb_mj.scene import aloha  # noqa: E402
from rsb_mj.scene.assets import ObjectSource, find_object_xml, resolve_object_source  # noqa: E402
from rsb_mj.scene.categories import Category, get_category  # noqa: E402
from rsb_mj.scene.categories.standins import GOAL_STANDINS, STANDINS  # noqa: E402
from rsb_mj.scene.frames import table_to_world  # noqa: E402
from rsb_mj.scene.legibility import resize_with_pad  # noqa: E402

#: Where each object stands (table frame, m): the middle of the head camera's view.
SPOT = (0.0, 0.08)
TILE, CAPTION = 224, 22
#: The stand-ins a sheet can show: the table's, then the goal scenes' own (``milk``).
NAMES = [*STANDINS, *(n for n in GOAL_STANDINS if n not in STANDINS)]


def render_alone(category: Category | None) -> np.ndarray:
    """The 224x224 RGB head-camera view of ``category`` (a stand-in or an original) alone on
    the table, or of the empty table for None."""
    spec = aloha.aloha_spec("fast")
    if category is not None:
        body = spec.worldbody.add_body(name="obj", pos=table_to_world(*SPOT, category.rest_height))
        category.build(spec, body, "obj")
    model = spec.compile()
    data = mujoco.MjData(model)
    qpos, ctrl = aloha.home_qpos_ctrl(model)
    data.qpos[:] = qpos
    data.ctrl[:] = ctrl
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, 240, 320) as renderer:
        renderer.update_scene(data, camera="head")
        image = renderer.render()
    small, _ = resize_with_pad(image)
    return small


def _caption(out: np.ndarray, text: str, x: int, y: int) -> None:
    cv2.putText(
        out, text[:30], (x + 4, y + TILE + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1,
        cv2.LINE_AA,
    )  # fmt: skip


def _missing_tile() -> np.ndarray:
    tile = np.full((TILE, TILE, 3), 200, dtype=np.uint8)
    cv2.putText(tile, "no original", (40, TILE // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (60, 60, 60))
    return tile


def sheet(names: list[str], columns: int = 8, source: ObjectSource | None = None) -> np.ndarray:
    """The RGB uint8 grid of :func:`render_alone` tiles, captioned, ``columns`` cells wide;
    with ``source`` (an asset folder) each cell is the stand-in and the original."""
    per = 1 if source is None or source.root is None else 2
    columns = max(1, min(columns, len(names)))
    rows = (len(names) + columns - 1) // columns
    out = np.full((rows * (TILE + CAPTION), columns * per * TILE, 3), 255, dtype=np.uint8)
    for i, name in enumerate(names):
        r, c = divmod(i, columns)
        y, x = r * (TILE + CAPTION), c * per * TILE
        out[y : y + TILE, x : x + TILE] = render_alone(get_category(name, goal=True))
        if per == 1:
            _caption(out, name, x, y)
            continue
        assert source is not None and source.root is not None
        _caption(out, f"{name} (stand-in)", x, y)
        has = find_object_xml(source.root, name) is not None
        tile = render_alone(source.category(name)) if has else _missing_tile()
        out[y : y + TILE, x + TILE : x + 2 * TILE] = tile
        _caption(out, "original" if has else "-", x + TILE, y)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the sheet; exit 2 for an unknown category, an asset folder that is not one, or
    a PNG that cannot be written."""
    parser = argparse.ArgumentParser(
        prog="tools/standins_sheet.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("output", type=Path, help="PNG path")
    parser.add_argument("--category", action="append", default=[], help="only these (repeat)")
    parser.add_argument("--columns", type=int, default=8, help="cells per row (default 8)")
    parser.add_argument(
        "--assets", metavar="DIR", help="a LIBERO / VLA-Arena asset folder: each stand-in "
        "beside its original",
    )  # fmt: skip
    args = parser.parse_args(argv)
    unknown = [n for n in args.category if n not in NAMES]
    if unknown:
        print(
            f"unknown stand-in {unknown[0]!r}; valid choices: {', '.join(sorted(NAMES))}",
            file=sys.stderr,
        )
        return 2
    if args.columns < 1:
        print("--columns must be at least 1", file=sys.stderr)
        return 2
    source = None
    if args.assets is not None:
        try:
            source = resolve_object_source(args.assets)
        except RsbError as exc:
            print(exc, file=sys.stderr)
            return 2
    names = args.category or NAMES
    if source is not None and source.root is not None and not args.category:
        names = [n for n in NAMES if find_object_xml(source.root, n) is not None]
        if not names:
            print(f"{args.assets}: holds none of the stand-ins' originals", file=sys.stderr)
            return 2
    image = cv2.cvtColor(sheet(names, args.columns, source), cv2.COLOR_RGB2BGR)
    ok, png = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        print(f"could not encode {args.output}", file=sys.stderr)
        return 2
    atomic_write_bytes(args.output, png.tobytes())
    pairs = " beside their originals" if source is not None else ""
    print(f"wrote {args.output}: {len(names)} stand-ins{pairs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
