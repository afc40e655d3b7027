"""``bowl``: a small procedural bowl (5 cm across, 2.8 cm tall) on a foot ring."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.revolved import hollow_vessel

#: Outer profile (radius, z) [m] from the bottom: the collision shape (convex).
OUTER = (
    (0.0, 0.0),
    (0.014, 0.0),
    (0.0165, 0.003),
    (0.0205, 0.008),
    (0.0235, 0.014),
    (0.025, 0.021),
    (0.025, 0.028),
    (0.0, 0.028),
)
#: The drawn bowl: the outer side up to the rim, then the inside down to its floor.
DRAWN = (
    *OUTER[:-1],
    (0.0225, 0.028),
    (0.0222, 0.022),
    (0.0205, 0.015),
    (0.016, 0.009),
    (0.009, 0.006),
    (0.0, 0.0055),
)
HEIGHT = 0.028


class Bowl(Category):
    """Drawn hollow; collides as its solid outer shape (what MuJoCo would use anyway)."""

    name = "bowl"
    rest_height = HEIGHT / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        shell = hollow_vessel(spec, body, obj, "bowl", OUTER, DRAWN, HEIGHT, 500.0)
        return BuiltObject(color_geoms=(shell.name,), letter_geoms=(), grip_width=0.05)
