"""Everyday objects from robosuite's object meshes (``assets/objects/robosuite``, MIT).

Each mesh is used for both looks and collision (MuJoCo collides with its convex hull) and is
tinted with the episode color. :data:`MESH_OBJECTS` is their table: bottle (5.6 cm wide,
16 cm tall; mesh origin 6.5 cm above its base), bread roll (6 x 5 x 6 cm), soda can (5 cm
diameter, 8 cm tall), cereal box (10 x 3 x 15 cm, graspable across its 3 cm side), lemon
(robosuite's, stretched 1.5x along body x as robosuite does: 6.8 cm long, 4 cm across, lying
on a flat base) and milk carton (4.4 cm square, 16 cm tall).
"""

from __future__ import annotations

from functools import cache

import mujoco
import numpy as np

from rsb_mj.resources import assets_dir
from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults
from rsb_mj.scene.meshes import read_stl


@cache
def _vertices(mesh_file: str, scale: tuple[float, float, float]) -> np.ndarray:
    raw = read_stl(assets_dir() / "objects" / "robosuite" / mesh_file)
    return raw.vertices * np.asarray(scale)


class MeshObject(Category):
    """A robosuite object mesh, centered at the body origin.

    Made with ``name``, ``mesh_file`` (in ``assets/objects/robosuite``), ``density``
    [kg/m^3], ``scale`` (per axis) and ``flat_base``; the resting height follows from the mesh.
    """

    mesh_file: str = ""
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    density: float = 500.0
    #: Half extents (x, y) [m] of an invisible flat base under a round object, or None.
    flat_base: tuple[float, float] | None = None
    #: Thickness [m] of the flat base below the mesh's lowest point.
    BASE_DROP = 0.001

    def __init__(
        self,
        name: str,
        mesh_file: str,
        density: float,
        scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
        flat_base: tuple[float, float] | None = None,
        about: str = "",
    ) -> None:
        self.name, self.mesh_file, self.density = name, mesh_file, density
        self.scale, self.flat_base, self.about = scale, flat_base, about

    @property
    def description(self) -> str:
        """What this row builds."""
        return self.about

    def __repr__(self) -> str:
        return f"MeshObject({self.name!r})"

    def vertices(self) -> np.ndarray:
        """Scaled mesh vertices (V, 3) in the body frame [m] (read once per process)."""
        return _vertices(self.mesh_file, self.scale)

    @property
    def rest_height(self) -> float:  # type: ignore[override]
        """Height [m] of the body origin above the table: minus the lowest vertex z."""
        drop = self.BASE_DROP if self.flat_base else 0.0
        return float(-self.vertices()[:, 2].min()) + drop

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        mesh_name = f"{self.name}_mesh"
        if spec.mesh(mesh_name) is None:
            raw = read_stl(assets_dir() / "objects" / "robosuite" / self.mesh_file)
            mesh = spec.add_mesh(name=mesh_name)
            mesh.uservert = self.vertices().ravel().tolist()
            mesh.userface = raw.faces.ravel().tolist()
        geom = body.add_geom(
            name=f"{obj}/mesh", type=mujoco.mjtGeom.mjGEOM_MESH, meshname=mesh_name, group=2
        )
        collision_defaults(geom, density=self.density)
        if self.flat_base:
            low = float(self.vertices()[:, 2].min())
            base = body.add_geom(
                name=f"{obj}/base",
                type=mujoco.mjtGeom.mjGEOM_BOX,
                size=[*self.flat_base, 0.004],
                pos=[0.0, 0.0, low - self.BASE_DROP + 0.004],
                group=3,
                rgba=[0, 0, 0, 0],
            )
            collision_defaults(base, density=0.0)
        width = float(np.ptp(self.vertices()[:, 1]))
        return BuiltObject(color_geoms=(geom.name,), letter_geoms=(), grip_width=width)


#: The robosuite-mesh categories (question tasks' ``can``, ``milk``, ``bread``, ...).
MESH_OBJECTS: tuple[MeshObject, ...] = (
    MeshObject("can", "can.stl", 300.0, about="``can``: robosuite's soda can (5 cm x 8 cm)."),
    MeshObject(
        "milk", "milk.stl", 300.0, about="``milk``: robosuite's milk carton (4.4 cm square, 16 cm)."
    ),
    MeshObject(
        "bread", "bread.stl", 250.0, about="``bread``: robosuite's bread roll (6 x 5 x 6 cm)."
    ),
    MeshObject(
        "cereal", "cereal.stl", 150.0, about="``cereal``: robosuite's cereal box (10 x 3 x 15 cm)."
    ),
    MeshObject(
        "lemon",
        "lemon.stl",
        500.0,
        scale=(1.5, 1.0, 1.0),
        flat_base=(0.012, 0.008),
        about="``lemon``: robosuite's lemon, stretched 1.5x along body x (6.8 x 4 cm).",
    ),
    MeshObject(
        "bottle", "bottle.stl", 200.0, about="``bottle``: robosuite's bottle (5.6 cm wide, 16 cm)."
    ),
)
