"""``sponge``: a kitchen sponge (7 x 4.4 x 2.8 cm) with a dark scouring layer underneath."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import LEAF_GREEN, solid

HALF = (0.035, 0.022, 0.014)
#: Thickness [m] of the scouring layer.
SCOUR = 0.007


class Sponge(Category):
    """Two boxes: the colored sponge on top of a green scouring pad; both collide."""

    name = "sponge"
    rest_height = HALF[2]

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        box = mujoco.mjtGeom.mjGEOM_BOX
        soft = HALF[2] - SCOUR / 2
        top = solid(
            body,
            f"{obj}/sponge",
            100.0,
            type=box,
            size=[HALF[0], HALF[1], soft],
            pos=[0.0, 0.0, HALF[2] - soft],
        )
        solid(
            body,
            f"{obj}/scour",
            150.0,
            type=box,
            size=[HALF[0], HALF[1], SCOUR / 2],
            pos=[0.0, 0.0, -HALF[2] + SCOUR / 2],
            rgba=list(LEAF_GREEN),
        )
        return BuiltObject(color_geoms=(top.name,), letter_geoms=(), grip_width=2 * HALF[1])
