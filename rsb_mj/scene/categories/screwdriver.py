"""``screwdriver``: a procedural screwdriver (10 cm long) with an octagonal handle."""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import METAL_GRAY, add_mesh, lay_along_x, revolve, solid

#: Handle: octagonal prism along body x, circumradius [m], from x0 to x1 [m].
HANDLE_R, HANDLE_X0, HANDLE_X1 = 0.0125, -0.05, 0.013
#: Shaft radius [m] and tip x [m].
SHAFT_R, TIP_X = 0.0032, 0.05
#: An octagon with flat faces down, up and to the sides.
APOTHEM = HANDLE_R * np.cos(np.pi / 8)


class Screwdriver(Category):
    """Lies on a flat face of its handle; the metal shaft floats at the handle's axis."""

    name = "screwdriver"
    rest_height = APOTHEM

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        length = HANDLE_X1 - HANDLE_X0
        bevel = 0.003
        profile = (
            (0.0, 0.0),
            (HANDLE_R - bevel, 0.0),
            (HANDLE_R, bevel),
            (HANDLE_R, length - bevel),
            (HANDLE_R - bevel, length),
            (0.0, length),
        )
        verts, faces = lay_along_x(*revolve(profile, segments=8, phase=np.pi / 8))
        verts = verts + np.array([HANDLE_X0, 0.0, 0.0])
        handle = solid(
            body,
            f"{obj}/handle",
            700.0,
            type=mujoco.mjtGeom.mjGEOM_MESH,
            meshname=add_mesh(spec, "screwdriver_handle", verts, faces),
        )
        solid(
            body,
            f"{obj}/shaft",
            2000.0,
            type=mujoco.mjtGeom.mjGEOM_CAPSULE,
            size=[SHAFT_R, 0, 0],
            fromto=[HANDLE_X1 - 0.002, 0.0, 0.0, TIP_X - SHAFT_R, 0.0, 0.0],
            rgba=list(METAL_GRAY),
        )
        return BuiltObject(color_geoms=(handle.name,), letter_geoms=(), grip_width=2 * APOTHEM)
