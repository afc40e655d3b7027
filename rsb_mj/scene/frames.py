"""Frames and fixed dimensions of the rsb scene (pure Python; no MuJoCo import).

Table frame: origin at the center of the table top, x to the robot's right, y away from the
robot (towards the far edge), z up; metres, yaw in radians about +z. The world frame has the
same x and y axes and origin in x/y; the table top is at world z = :data:`TABLE_TOP_Z`.
"""

from __future__ import annotations

import numpy as np

#: World z of the table top [m].
TABLE_TOP_Z = 0.75
#: Table half extents along x and y [m] (the Aloha table, 1.22 m x 0.76 m).
TABLE_HALF_XY = (0.61, 0.38)
#: Table-frame x, y of each arm's waist axis [m] (left arm at -x, right arm at +x).
ARM_BASE_XY: dict[str, tuple[float, float]] = {"left": (-0.469, 0.0), "right": (0.469, 0.0)}
#: Horizontal distance from an arm's waist axis within which it picks from above [m].
REACH_MIN, REACH_MAX = 0.20, 0.56


def table_to_world(x: float, y: float, z: float = 0.0) -> np.ndarray:
    """World position [m] of the table-frame point (x, y, z)."""
    return np.array([x, y, z + TABLE_TOP_Z], dtype=float)


def world_to_table(p: np.ndarray) -> np.ndarray:
    """Table-frame coordinates [m] of the world point ``p`` (the inverse of table_to_world)."""
    out = np.array(p, dtype=float)
    out[..., 2] -= TABLE_TOP_Z
    return out


def side_of(x: float) -> str:
    """The arm that serves table-frame x: ``"right"`` for x >= 0, else ``"left"``."""
    return "right" if x >= 0.0 else "left"
