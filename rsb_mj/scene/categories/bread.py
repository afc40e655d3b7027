"""``bread``: robosuite's bread roll (6 x 5 x 6 cm)."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Bread(MeshObject):
    """A bread roll."""

    name = "bread"
    mesh_file = "bread.stl"
    density = 250.0
