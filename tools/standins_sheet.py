"""Contact sheet of the stand-in objects: each alone on the Aloha's table, seen by the head
camera as the policy sees it (224x224), in one PNG grid with the category names.

Usage::

    PYTHONPATH=$PWD python tools/standins_sheet.py OUT.png [--category NAME ...] [--columns N]

Every category of :data:`rsb_mj.scene.categories.standins.STANDINS` by default (the sheet in
docs/objects.md); ``--category`` renders only the ones named. Each tile is the 320x240 head
image of a scene with the one object at the table point (0, 0.08) m, resized with openpi's
``resize_with_pad`` to 224x224, with the name printed under it.
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
from rsb_mj.scene import aloha  # noqa: E402
from rsb_mj.scene.categories import get_category  # noqa: E402
from rsb_mj.scene.categories.standins import STANDINS  # noqa: E402
from rsb_mj.scene.frames import table_to_world  # noqa: E402
from rsb_mj.scene.legibility import resize_with_pad  # noqa: E402

#: Where each object stands (table frame, m): the middle of the head camera's view.
SPOT = (0.0, 0.08)
TILE, CAPTION = 224, 22


def render_alone(name: str) -> np.ndarray:
    """The 224x224 RGB head-camera view of category ``name`` alone on the table."""
    category = get_category(name)
    spec = aloha.aloha_spec("fast")
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


def sheet(names: list[str], columns: int = 8) -> np.ndarray:
    """The RGB uint8 grid of :func:`render_alone` tiles, captioned, ``columns`` wide."""
    rows = (len(names) + columns - 1) // columns
    out = np.full((rows * (TILE + CAPTION), columns * TILE, 3), 255, dtype=np.uint8)
    for i, name in enumerate(names):
        r, c = divmod(i, columns)
        y, x = r * (TILE + CAPTION), c * TILE
        out[y : y + TILE, x : x + TILE] = render_alone(name)
        cv2.putText(
            out,
            name[:30],
            (x + 4, y + TILE + 15),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.42,
            (0, 0, 0),
            1,
            cv2.LINE_AA,
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the sheet; exit 2 for an unknown category or a PNG that cannot be written."""
    parser = argparse.ArgumentParser(
        prog="tools/standins_sheet.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("output", type=Path, help="PNG path")
    parser.add_argument("--category", action="append", default=[], help="only these (repeat)")
    parser.add_argument("--columns", type=int, default=8, help="tiles per row (default 8)")
    args = parser.parse_args(argv)
    names = args.category or list(STANDINS)
    unknown = [n for n in names if n not in STANDINS]
    if unknown:
        print(
            f"unknown stand-in {unknown[0]!r}; valid choices: {', '.join(sorted(STANDINS))}",
            file=sys.stderr,
        )
        return 2
    if args.columns < 1:
        print("--columns must be at least 1", file=sys.stderr)
        return 2
    image = cv2.cvtColor(sheet(names, args.columns), cv2.COLOR_RGB2BGR)
    ok, png = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        print(f"could not encode {args.output}", file=sys.stderr)
        return 2
    atomic_write_bytes(args.output, png.tobytes())
    print(f"wrote {args.output}: {len(names)} stand-ins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
