"""``letter_block``: a 4 cm wooden cube showing its option letter on every face."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults

#: Half the edge length of a block [m].
HALF_EDGE = 0.02


class LetterBlock(Category):
    """A cube; its color and letter come from the episode."""

    name = "letter_block"
    rest_height = HALF_EDGE

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        geom = body.add_geom(
            name=f"{obj}/box", type=mujoco.mjtGeom.mjGEOM_BOX, size=[HALF_EDGE] * 3, group=2
        )
        collision_defaults(geom, density=600.0)
        return BuiltObject(color_geoms=(), letter_geoms=(geom.name,), grip_width=2 * HALF_EDGE)
