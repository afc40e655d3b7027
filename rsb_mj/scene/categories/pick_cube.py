"""``pick_cube``: the 4 cm wooden cube an Act2Answer task moves onto an answer plate."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults

#: Half the edge length [m].
HALF_EDGE = 0.02
#: Its colour (unpainted wood; no answer colour uses it).
RGBA = (0.62, 0.46, 0.30, 1.0)


class PickCube(Category):
    """A plain cube, the same in every episode."""

    name = "pick_cube"
    rest_height = HALF_EDGE

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        geom = body.add_geom(
            name=f"{obj}/box",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[HALF_EDGE] * 3,
            rgba=list(RGBA),
            group=2,
        )
        collision_defaults(geom, density=600.0)
        return BuiltObject(color_geoms=(), letter_geoms=(), grip_width=2 * HALF_EDGE)
