"""``hammer``: a procedural toy hammer (9.5 cm long, head 4.4 cm) lying on its side."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import METAL_GRAY, solid

LENGTH = 0.095
#: Handle half size (x, y, z) [m]: a square wooden bar along body x.
HANDLE = (0.0385, 0.008, 0.008)
#: Head half size (x, y, z) [m]: across the handle's +x end, along body y.
HEAD = (0.009, 0.022, 0.01)


class Hammer(Category):
    """A colored handle and a gray head, both collide; gripped across the handle's middle."""

    name = "hammer"
    rest_height = HEAD[2]

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        box = mujoco.mjtGeom.mjGEOM_BOX
        handle = solid(
            body,
            f"{obj}/handle",
            600.0,
            type=box,
            size=list(HANDLE),
            pos=[-LENGTH / 2 + HANDLE[0], 0.0, HANDLE[2] - HEAD[2]],
        )
        solid(
            body,
            f"{obj}/head",
            400.0,
            type=box,
            size=list(HEAD),
            pos=[LENGTH / 2 - HEAD[0], 0.0, 0.0],
            rgba=list(METAL_GRAY),
        )
        return BuiltObject(color_geoms=(handle.name,), letter_geoms=(), grip_width=2 * HEAD[1])
