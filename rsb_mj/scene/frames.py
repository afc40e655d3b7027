"""Frames of the rsb scene (numpy, no MuJoCo); the dimensions are :mod:`rsb_mj.workspace`'s.

Table frame: origin at the center of the table top, x to the robot's right, y away from the
robot (towards the far edge), z up; metres, yaw in radians about +z. The world frame has the
same x and y axes and origin in x/y; the table top is at world z = :data:`TABLE_TOP_Z`.
"""

from __future__ import annotations

import numpy as np

from rsb_mj.workspace import (
    TABLE_TOP_Z,
)

__all__ = ["table_to_world", "world_to_table"]


def table_to_world(x: float, y: float, z: float = 0.0) -> np.ndarray:
    """World position [m] of the table-frame point (x, y, z)."""
    return np.array([x, y, z + TABLE_TOP_Z], dtype=float)


def world_to_table(p: np.ndarray) -> np.ndarray:
    """Table-frame coordinates [m] of the world point ``p`` (the inverse of table_to_world)."""
    out = np.array(p, dtype=float)
    out[..., 2] -= TABLE_TOP_Z
    return out
