"""``wrench``: a procedural toy wrench (10 cm long, 1.4 cm thick) lying flat."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import RUBBER_BLACK, solid, visual

HALF_THICK = 0.007
#: Shaft half size (x, y) [m].
SHAFT = (0.034, 0.0075)
#: Ring end (body -x): a disc of this radius [m] centred at x [m], a dark hole on top.
RING_R, RING_X = 0.0155, -0.0345
#: Open end (body +x): jaw half size (x, y) [m], jaw centres (x, +-y) [m], and the back.
JAW, JAW_X, JAW_Y = (0.0075, 0.0045), 0.0425, 0.0110
BACK, BACK_X = (0.004, 0.0155), 0.031


class Wrench(Category):
    """A shaft, a ring end and an open (U) end; every part collides and takes the color."""

    name = "wrench"
    rest_height = HALF_THICK

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        box = mujoco.mjtGeom.mjGEOM_BOX
        parts = [
            solid(body, f"{obj}/shaft", 700.0, type=box, size=[*SHAFT, HALF_THICK]),
            solid(
                body,
                f"{obj}/ring",
                700.0,
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[RING_R, HALF_THICK, 0],
                pos=[RING_X, 0.0, 0.0],
            ),
            solid(
                body, f"{obj}/back", 700.0, type=box, size=[*BACK, HALF_THICK], pos=[BACK_X, 0, 0]
            ),
        ]
        for i, sign in enumerate((1, -1)):
            parts.append(
                solid(
                    body,
                    f"{obj}/jaw{i}",
                    700.0,
                    type=box,
                    size=[*JAW, HALF_THICK],
                    pos=[JAW_X, sign * JAW_Y, 0.0],
                )
            )
        visual(
            body,
            f"{obj}/hole",
            type=mujoco.mjtGeom.mjGEOM_CYLINDER,
            size=[0.0075, 0.0002, 0],
            pos=[RING_X - 0.002, 0.0, HALF_THICK],
            rgba=list(RUBBER_BLACK),
        )
        return BuiltObject(
            color_geoms=tuple(p.name for p in parts), letter_geoms=(), grip_width=2 * RING_R
        )
