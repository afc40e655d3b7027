"""Footprints: the xy extent of an object's collision geometry, in the object's own frame.

What ``(On x ?c)`` means by "over candidate c's top face" (:mod:`rsb_mj.env.signals`) and
where the expert puts an object it places on a candidate (:mod:`rsb_mj.expert`). An answer
plate (one 16 x 12 cm box) has the footprint centre (0, 0) and half size (0.08, 0.06) m.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import SceneError


@dataclass(frozen=True)
class Footprint:
    """An axis-aligned rectangle in a body's frame.

    Attributes:
        center: xy of its centre in the body frame [m], shape (2,).
        half: its half extents along the body's x and y [m], shape (2,).
    """

    center: np.ndarray
    half: np.ndarray


def footprint(model: mujoco.MjModel, body: str) -> Footprint:
    """The xy bounding box of ``body``'s collision geoms (its own geoms, not its
    children's), in the body frame.

    Raises:
        SceneError: when the body has no collision geom.
    """
    bid = model.body(body).id
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    rot = np.zeros(9)
    for g in range(model.ngeom):
        if model.geom_bodyid[g] != bid or not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        mujoco.mju_quat2Mat(rot, model.geom_quat[g])
        r = rot.reshape(3, 3)
        aabb = model.geom_aabb[g]  # centre (3) and half sizes (3), geom frame
        centre = model.geom_pos[g] + r @ aabb[:3]
        half = np.abs(r) @ aabb[3:]
        lo, hi = np.minimum(lo, centre - half), np.maximum(hi, centre + half)
    if not np.isfinite(lo).all():
        raise SceneError(f"body {body!r} has no collision geom: it has no footprint")
    return Footprint(center=((lo + hi) / 2)[:2], half=((hi - lo) / 2)[:2])


def in_footprint(
    point: np.ndarray, position: np.ndarray, quat: np.ndarray, fp: Footprint
) -> np.ndarray:
    """Whether world points lie over a footprint, vectorized over leading axes.

    Args:
        point: world xyz of the points [m], shape (..., 3).
        position: world xyz of the footprint's body [m], shape (..., 3).
        quat: world orientation of the body (w, x, y, z), shape (..., 4).
        fp: the body's footprint.

    Returns:
        bool (...): the point's xy, in the body frame, lies inside the rectangle (edges
        included).
    """
    w, x, y, z = np.moveaxis(np.asarray(quat, dtype=float), -1, 0)
    d = np.asarray(point, dtype=float) - position
    # First two rows of R^T (the body's x and y axes in world coordinates).
    ux = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], -1)
    uy = np.stack([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)], -1)
    local_x = (d * ux).sum(-1) - fp.center[0]
    local_y = (d * uy).sum(-1) - fp.center[1]
    return (np.abs(local_x) <= fp.half[0]) & (np.abs(local_y) <= fp.half[1])
