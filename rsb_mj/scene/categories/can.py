"""``can``: robosuite's soda can (5 cm diameter, 8 cm tall)."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Can(MeshObject):
    """A soda can standing upright."""

    name = "can"
    mesh_file = "can.stl"
    density = 300.0
