"""``lemon``: robosuite's lemon, stretched 1.5x along its long axis (body x) as robosuite does."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Lemon(MeshObject):
    """A lemon lying on its side (6.8 cm long, 4 cm across)."""

    name = "lemon"
    mesh_file = "lemon.stl"
    scale = (1.5, 1.0, 1.0)
    density = 500.0
    flat_base = (0.012, 0.008)
