"""``answer_plate``: an Act2Answer tile, 16 x 12 x 0.6 cm, showing its answer on top.

The top face shows the plate's content texture (:mod:`rsb_mj.scene.plates`), written per
episode. The plate is heavy (a dropped cube does not move it) and is never grasped.
"""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults
from rsb_mj.scene.plates import add_plate_texture

#: Half extents [m] of the plate (x, y, z).
HALF_SIZE = (0.08, 0.06, 0.003)


class AnswerPlate(Category):
    """A flat tile; what it shows comes from the episode."""

    name = "answer_plate"
    rest_height = HALF_SIZE[2]

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        geom = body.add_geom(
            name=f"{obj}/tile", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(HALF_SIZE), group=2
        )
        collision_defaults(geom, density=4000.0)
        geom.material = add_plate_texture(spec, obj)
        return BuiltObject(color_geoms=(), letter_geoms=(), grip_width=2 * HALF_SIZE[1])
