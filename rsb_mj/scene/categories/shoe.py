"""``shoe``: a procedural child's shoe (11 cm long, 4.2 cm wide, 5 cm tall at the heel)."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import RUBBER_BLACK, solid, visual

HALF_LENGTH, HALF_WIDTH, HEIGHT = 0.055, 0.021, 0.05
SOLE = 0.008
#: Collar (heel and ankle, body -x) and vamp (over the toes, body +x): x0, x1, top z [m].
COLLAR = (-HALF_LENGTH, 0.012, HEIGHT)
VAMP = (0.008, HALF_LENGTH - 0.004, 0.028)


class Shoe(Category):
    """Dark sole, colored upper of two boxes and a rounded toe; the opening drawn on top."""

    name = "shoe"
    rest_height = HEIGHT / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        box = mujoco.mjtGeom.mjGEOM_BOX
        z0 = -HEIGHT / 2
        solid(
            body,
            f"{obj}/sole",
            900.0,
            type=box,
            size=[HALF_LENGTH, HALF_WIDTH, SOLE / 2],
            pos=[0.0, 0.0, z0 + SOLE / 2],
            rgba=list(RUBBER_BLACK),
        )
        upper = []
        for part, (x0, x1, top) in (("collar", COLLAR), ("vamp", VAMP)):
            half_z = (top - SOLE) / 2
            upper.append(
                solid(
                    body,
                    f"{obj}/{part}",
                    250.0,
                    type=box,
                    size=[(x1 - x0) / 2, HALF_WIDTH - 0.001, half_z],
                    pos=[(x0 + x1) / 2, 0.0, z0 + SOLE + half_z],
                )
            )
        toe_half_z = (VAMP[2] - SOLE) / 2
        upper.append(
            visual(
                body,
                f"{obj}/toe",
                type=mujoco.mjtGeom.mjGEOM_ELLIPSOID,
                size=[0.012, HALF_WIDTH - 0.001, toe_half_z],
                pos=[HALF_LENGTH - 0.012, 0.0, z0 + SOLE + toe_half_z - 0.0005],
            )
        )
        visual(
            body,
            f"{obj}/opening",
            type=mujoco.mjtGeom.mjGEOM_ELLIPSOID,
            size=[0.018, 0.013, 0.0004],
            pos=[-0.031, 0.0, HEIGHT / 2],
            rgba=list(RUBBER_BLACK),
        )
        return BuiltObject(
            color_geoms=tuple(g.name for g in upper), letter_geoms=(), grip_width=2 * HALF_WIDTH
        )
