"""``cereal``: robosuite's cereal box (10 x 3 x 15 cm), graspable across its 3 cm side."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Cereal(MeshObject):
    """A cereal box standing upright, its wide side along body x."""

    name = "cereal"
    mesh_file = "cereal.stl"
    density = 150.0
