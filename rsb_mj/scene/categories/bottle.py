"""``bottle``: robosuite's bottle (5.6 cm wide, 16 cm tall; mesh origin 6.5 cm above its base)."""

from __future__ import annotations

from rsb_mj.scene.categories.mesh_object import MeshObject


class Bottle(MeshObject):
    """A bottle standing upright."""

    name = "bottle"
    mesh_file = "bottle.stl"
    density = 200.0
