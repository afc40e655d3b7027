"""``mug``: a procedural mug (5 cm across, 6.4 cm tall, a handle along body +x)."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.revolved import hollow_vessel
from rsb_mj.scene.categories.shapes import solid

RADIUS, HEIGHT, WALL = 0.025, 0.064, 0.0025
#: Outer profile (radius, z) [m] from the bottom: the body's collision shape (convex).
OUTER = ((0.0, 0.0), (RADIUS - 0.002, 0.0), (RADIUS, 0.002), (RADIUS, HEIGHT), (0.0, HEIGHT))
#: The drawn mug: outer wall up to the rim, inner wall down to the floor.
DRAWN = (
    *OUTER[:-1],
    (RADIUS - WALL, HEIGHT),
    (RADIUS - WALL, 0.008),
    (RADIUS - WALL - 0.002, 0.006),
    (0.0, 0.006),
)
#: Handle bars: (half size x, y, z), center (x, z) [m] (body frame, z from the bottom).
HANDLE = (
    ((0.0085, 0.005, 0.0035), (RADIUS + 0.0065, 0.052)),
    ((0.0085, 0.005, 0.0035), (RADIUS + 0.0065, 0.016)),
    ((0.0035, 0.005, 0.0215), (RADIUS + 0.0115, 0.034)),
)


class Mug(Category):
    """Drawn hollow; the body collides as a solid cylinder, the handle as three boxes."""

    name = "mug"
    rest_height = HEIGHT / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        shell = hollow_vessel(spec, body, obj, "mug", OUTER, DRAWN, HEIGHT, 400.0)
        color = [shell.name]
        for i, (half, (x, z)) in enumerate(HANDLE):
            bar = solid(
                body,
                f"{obj}/handle{i}",
                400.0,
                type=mujoco.mjtGeom.mjGEOM_BOX,
                size=list(half),
                pos=[x, 0.0, z - HEIGHT / 2],
            )
            color.append(bar.name)
        return BuiltObject(color_geoms=tuple(color), letter_geoms=(), grip_width=2 * RADIUS)
