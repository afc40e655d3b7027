"""``playing_card``: a small deck of cards (5.6 x 4 x 1.6 cm) with the option letter on top."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults

HALF_SIZE = (0.028, 0.02, 0.008)


class PlayingCard(Category):
    """A deck: a letter-textured box, graspable across its 4 cm side (body y)."""

    name = "playing_card"
    rest_height = HALF_SIZE[2]

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        geom = body.add_geom(
            name=f"{obj}/deck", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(HALF_SIZE), group=2
        )
        collision_defaults(geom, density=700.0)
        return BuiltObject(color_geoms=(), letter_geoms=(geom.name,), grip_width=2 * HALF_SIZE[1])
