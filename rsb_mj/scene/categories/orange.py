"""``orange``: a small procedural orange (a mandarin: 5 cm wide, 4.4 cm tall)."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.revolved import RevolvedObject
from rsb_mj.scene.categories.shapes import LEAF_GREEN, visual


class Orange(RevolvedObject):
    """A slightly flattened sphere on a small flat bottom, a green calyx on top."""

    name = "orange"
    pieces = (
        (
            (0.0, 0.0),
            (0.010, 0.0),
            (0.0175, 0.0035),
            (0.0225, 0.010),
            (0.0248, 0.017),
            (0.025, 0.022),
            (0.0248, 0.027),
            (0.0225, 0.034),
            (0.0175, 0.0405),
            (0.009, 0.0435),
            (0.0, 0.044),
        ),
    )
    density = 850.0

    def details(self, body: mujoco.MjsBody, obj: str) -> None:
        visual(
            body,
            f"{obj}/calyx",
            type=mujoco.mjtGeom.mjGEOM_CYLINDER,
            size=[0.003, 0.0006, 0],
            pos=[0.0, 0.0, self.height / 2],
            rgba=list(LEAF_GREEN),
        )
