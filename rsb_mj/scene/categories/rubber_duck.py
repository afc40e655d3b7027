"""``rubber_duck``: a procedural rubber duck (6.7 cm long, 4.4 cm wide, 5.8 cm tall)."""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import RUBBER_BLACK, add_mesh, revolve, solid, visual

#: Body: a dome on a flat bottom (radius [m], height [m]) stretched along body x.
BODY_R, BODY_H, BODY_STRETCH = 0.022, 0.033, 1.3
#: Head: sphere radius [m] and centre (x, z) [m], z from the bottom. The head sits over the
#: body's centre, so a duck held by its head hangs level (held off-centre it swung and fell).
HEAD_R, HEAD_X, HEAD_Z = 0.0145, 0.0, 0.0435
HEIGHT = HEAD_Z + HEAD_R
BEAK = (0.35, 0.2, 0.08, 1.0)


class RubberDuck(Category):
    """Body and head collide (a flat-bottomed dome and a sphere); beak, tail and eyes drawn."""

    name = "rubber_duck"
    rest_height = HEIGHT / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        z0 = -HEIGHT / 2
        angles = np.linspace(0.0, np.pi / 2, 7)
        dome = [(0.0, 0.0), (BODY_R * 0.8, 0.0)]
        dome += [(BODY_R * np.cos(a), 0.004 + (BODY_H - 0.004) * np.sin(a)) for a in angles[:-1]]
        dome += [(0.0, BODY_H)]
        verts, faces = revolve(dome)
        trunk = solid(
            body,
            f"{obj}/body",
            300.0,
            type=mujoco.mjtGeom.mjGEOM_MESH,
            meshname=add_mesh(spec, "rubber_duck_body", verts, faces, (BODY_STRETCH, 1.0, 1.0)),
            pos=[0.0, 0.0, z0],
        )
        head = solid(
            body,
            f"{obj}/head",
            300.0,
            type=mujoco.mjtGeom.mjGEOM_SPHERE,
            size=[HEAD_R, 0, 0],
            pos=[HEAD_X, 0.0, z0 + HEAD_Z],
        )
        visual(
            body,
            f"{obj}/beak",
            type=mujoco.mjtGeom.mjGEOM_ELLIPSOID,
            size=[0.008, 0.007, 0.003],
            pos=[HEAD_X + HEAD_R + 0.003, 0.0, z0 + HEAD_Z - 0.003],
            rgba=list(BEAK),
        )
        tail = visual(
            body,
            f"{obj}/tail",
            type=mujoco.mjtGeom.mjGEOM_ELLIPSOID,
            size=[0.008, 0.007, 0.004],
            pos=[-BODY_R * BODY_STRETCH + 0.001, 0.0, z0 + 0.024],
            euler=[0.0, 0.6, 0.0],
        )
        for i, sign in enumerate((1, -1)):
            eye = np.array([np.cos(0.5), sign * np.sin(0.5) * 0.9, 0.35])
            eye = eye / np.linalg.norm(eye) * HEAD_R
            visual(
                body,
                f"{obj}/eye{i}",
                type=mujoco.mjtGeom.mjGEOM_SPHERE,
                size=[0.002, 0, 0],
                pos=[HEAD_X + eye[0], eye[1], z0 + HEAD_Z + eye[2]],
                rgba=list(RUBBER_BLACK),
            )
        return BuiltObject(
            color_geoms=(trunk.name, head.name, tail.name), letter_geoms=(), grip_width=2 * BODY_R
        )
