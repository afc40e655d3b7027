"""Everyday objects from robosuite's object meshes (``assets/objects/robosuite``, MIT).

Each mesh is used for both looks and collision (MuJoCo collides with its convex hull) and is
tinted with the episode color.
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.resources import assets_dir
from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults
from rsb_mj.scene.meshes import read_stl


class MeshObject(Category):
    """A robosuite object mesh, centered at the body origin.

    Subclasses set ``name``, ``mesh_file`` (in ``assets/objects/robosuite``), ``scale``
    (per axis), ``rest_height`` (half its scaled height [m]) and ``density`` [kg/m^3].
    """

    mesh_file: str = ""
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    density: float = 500.0

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        mesh_name = f"{self.name}_mesh"
        if spec.mesh(mesh_name) is None:
            raw = read_stl(assets_dir() / "objects" / "robosuite" / self.mesh_file)
            mesh = spec.add_mesh(name=mesh_name)
            mesh.uservert = (raw.vertices * np.asarray(self.scale)).ravel().tolist()
            mesh.userface = raw.faces.ravel().tolist()
        geom = body.add_geom(
            name=f"{obj}/mesh", type=mujoco.mjtGeom.mjGEOM_MESH, meshname=mesh_name, group=2
        )
        collision_defaults(geom, density=self.density)
        width = 2 * self.info.footprint_radius
        return BuiltObject(color_geoms=(geom.name,), letter_geoms=(), grip_width=width)
