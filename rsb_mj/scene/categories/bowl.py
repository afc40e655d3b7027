"""``bowl``: a small procedural bowl (5 cm across, 2.8 cm tall) on a foot ring."""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import add_mesh, hull, revolve, visual

#: Outer profile (radius, z) [m] from the bottom: the collision shape (convex).
OUTER = (
    (0.0, 0.0),
    (0.014, 0.0),
    (0.0165, 0.003),
    (0.0205, 0.008),
    (0.0235, 0.014),
    (0.025, 0.021),
    (0.025, 0.028),
    (0.0, 0.028),
)
#: The drawn bowl: the outer side up to the rim, then the inside down to its floor.
DRAWN = (
    *OUTER[:-1],
    (0.0225, 0.028),
    (0.0222, 0.022),
    (0.0205, 0.015),
    (0.016, 0.009),
    (0.009, 0.006),
    (0.0, 0.0055),
)
HEIGHT = 0.028


class Bowl(Category):
    """Drawn hollow; collides as its solid outer shape (what MuJoCo would use anyway)."""

    name = "bowl"
    rest_height = HEIGHT / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        down = np.array([0.0, 0.0, HEIGHT / 2])
        outer, outer_faces = revolve(OUTER)
        drawn, drawn_faces = revolve(DRAWN)
        mesh = mujoco.mjtGeom.mjGEOM_MESH
        hull(
            body,
            f"{obj}/hull",
            500.0,
            type=mesh,
            meshname=add_mesh(spec, "bowl_hull", outer - down, outer_faces),
        )
        shell = visual(
            body,
            f"{obj}/shell",
            type=mesh,
            meshname=add_mesh(spec, "bowl_shell", drawn - down, drawn_faces),
        )
        return BuiltObject(color_geoms=(shell.name,), letter_geoms=(), grip_width=0.05)
