"""``spoon``: a procedural wooden spoon (10 cm long) lying on its back."""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import add_mesh, revolve, solid

#: Bowl: a flattened dome (radius [m], height [m]) stretched along body x, centred at x [m].
BOWL_R, BOWL_H, BOWL_STRETCH, BOWL_X = 0.0155, 0.014, 1.3, 0.029
#: Handle half size (x, y, z) [m] and centre x [m]: a thick wooden bar.
HANDLE, HANDLE_X = (0.0325, 0.0065, 0.0065), -0.0175


class Spoon(Category):
    """A domed bowl at +x (its back on the table) and a square handle at -x; both collide."""

    name = "spoon"
    rest_height = BOWL_H / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        angles = np.linspace(0.0, np.pi / 2, 6)
        dome = [(0.0, 0.0)]
        dome += [(BOWL_R * np.sin(a), BOWL_H * (1 - np.cos(a)) * 0.7) for a in angles[1:]]
        dome += [(BOWL_R, BOWL_H), (0.0, BOWL_H)]
        verts, faces = revolve(dome)
        verts = verts + np.array([0.0, 0.0, -BOWL_H / 2])
        bowl = solid(
            body,
            f"{obj}/bowl",
            600.0,
            type=mujoco.mjtGeom.mjGEOM_MESH,
            meshname=add_mesh(spec, "spoon_bowl", verts, faces, (BOWL_STRETCH, 1.0, 1.0)),
            pos=[BOWL_X, 0.0, 0.0],
        )
        handle = solid(
            body,
            f"{obj}/handle",
            600.0,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=list(HANDLE),
            pos=[HANDLE_X, 0.0, HANDLE[2] - BOWL_H / 2],
        )
        return BuiltObject(
            color_geoms=(bowl.name, handle.name), letter_geoms=(), grip_width=2 * BOWL_R
        )
