"""``banana``: a procedural banana (10.6 cm long, bent 1.3 cm, 2.8 cm thick) on its side."""

from __future__ import annotations

import itertools

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import STEM_BROWN, add_mesh, capsule_hull, solid, visual

RADIUS = 0.014
#: Half chord [m] of the banana's center line (body x) and its bend (body y) [m].
HALF_CHORD, BEND = 0.039, 0.013
#: Capsules along the center line.
SEGMENTS = 5


def center_line() -> np.ndarray:
    """Points (SEGMENTS + 1, 2) [m] of the center line in the table plane (body x, y),
    centred so the banana's bounding box is centred on the body origin."""
    x = np.linspace(-HALF_CHORD, HALF_CHORD, SEGMENTS + 1)
    y = BEND * (1.0 - (x / HALF_CHORD) ** 2) - BEND / 2
    return np.column_stack([x, y])


class Banana(Category):
    """A chain of capsule-shaped meshes bent along body y (its narrow side), dark stem and
    tip. Meshes rather than capsule geoms: the expert and the layout bound a primitive by
    its rotated bounding box, which for a slanted capsule is centimetres too wide."""

    name = "banana"
    rest_height = RADIUS

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        pts = center_line()
        color = []
        for i, (a, b) in enumerate(itertools.pairwise(pts)):
            verts, faces = capsule_hull(np.array([*a, 0.0]), np.array([*b, 0.0]), RADIUS)
            seg = solid(
                body,
                f"{obj}/seg{i}",
                600.0,
                type=mujoco.mjtGeom.mjGEOM_MESH,
                meshname=add_mesh(spec, f"banana_seg{i}", verts, faces),
            )
            color.append(seg.name)
        # The stem leaves the +x end along the center line's direction; the tip is a dark cap.
        d = pts[-1] - pts[-2]
        d /= np.linalg.norm(d)
        stem_a = pts[-1] + d * (RADIUS - 0.006)
        stem_b = stem_a + d * 0.006
        visual(
            body,
            f"{obj}/stem",
            type=mujoco.mjtGeom.mjGEOM_CAPSULE,
            size=[0.0045, 0, 0],
            fromto=[stem_a[0], stem_a[1], 0.002, stem_b[0], stem_b[1], 0.003],
            rgba=list(STEM_BROWN),
        )
        e = pts[0] - pts[1]
        e /= np.linalg.norm(e)
        tip = pts[0] + e * (RADIUS - 0.0035)
        visual(
            body,
            f"{obj}/tip",
            type=mujoco.mjtGeom.mjGEOM_SPHERE,
            size=[0.005, 0, 0],
            pos=[tip[0], tip[1], 0.0],
            rgba=list(STEM_BROWN),
        )
        return BuiltObject(color_geoms=tuple(color), letter_geoms=(), grip_width=BEND + 2 * RADIUS)
