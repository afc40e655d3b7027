"""``milk``: robosuite's milk carton (4.4 cm square, 16 cm tall)."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Milk(MeshObject):
    """A milk carton standing upright."""

    name = "milk"
    mesh_file = "milk.stl"
    density = 300.0
