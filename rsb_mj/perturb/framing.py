"""Keep the candidates and the answer zone in view when V3 moves the head camera.

The head camera frames the workspace tightly (every candidate legible), so VLA-Arena's
+-0.105 m per-axis offset can push a candidate near the table's side edge out of the image:
measured on the first 200 eval rows at 320x240, 131 rows of RSB-Math-10 and 58 of RSB-Math-4
had a candidate partly outside the head image. :func:`fit_scale` shortens the drawn offset
along its own direction, by the largest factor in :data:`SCALES` for which every corner of
every candidate's and the zone's bounding boxes projects inside the image with
:data:`VIEW_MARGIN`; the draw itself is unchanged (same generator, same direction).

Frames: offsets are in the camera's parent body frame (the world for the head camera), as
MuJoCo's ``cam_pos``; points in the world frame [m]; pixels as
:func:`rsb_mj.scene.legibility.project`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import mujoco
import numpy as np

from rsb_mj.scene.legibility import project

#: Offset factors tried, largest first (1 = the drawn offset, 0 = the compiled camera).
SCALES = tuple(float(s) for s in np.round(np.linspace(1.0, 0.0, 21), 2))
#: Margin kept from each image edge, as a fraction of that image side.
VIEW_MARGIN = 0.01
_SIGNS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


def box_corners(model: mujoco.MjModel, data: mujoco.MjData, geoms: Iterable[int]) -> np.ndarray:
    """World corners [m] (8 per geom, (N, 3)) of the geoms' local bounding boxes
    (``model.geom_aabb``) at their current poses; ``data`` must be forwarded."""
    out = []
    for g in geoms:
        center, half = model.geom_aabb[g][:3], model.geom_aabb[g][3:]
        rot = data.geom_xmat[g].reshape(3, 3)
        out.append(data.geom_xpos[g] + (center + _SIGNS * half) @ rot.T)
    return np.concatenate(out) if out else np.zeros((0, 3))


def in_view(uv: np.ndarray, width: int, height: int, margin: float = VIEW_MARGIN) -> bool:
    """Whether every pixel (N, 2) lies inside the ``width`` x ``height`` image, ``margin``
    (fraction of each side) away from its edges."""
    mu, mv = margin * width, margin * height
    u, v = uv[:, 0], uv[:, 1]
    return bool(np.all((u >= mu) & (u <= width - mu) & (v >= mv) & (v <= height - mv)))


def fit_scale(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    camera: str,
    offset: np.ndarray,
    points: np.ndarray,
    width: int,
    height: int,
) -> float:
    """The largest factor ``s`` in :data:`SCALES` such that the camera moved by
    ``s * offset`` (parent frame [m]) sees every world point of ``points`` (N, 3) in a
    ``width`` x ``height`` image; 0 when none does (points already out of view stay so).

    ``data`` must be forwarded with the camera at its compiled position; its camera pose is
    left as it was.
    """
    if len(points) == 0:
        return 1.0
    cam = model.camera(camera).id
    parent = int(model.cam_bodyid[cam])
    shift = data.xmat[parent].reshape(3, 3) @ np.asarray(offset, dtype=float)
    base = data.cam_xpos[cam].copy()
    try:
        for scale in SCALES:
            data.cam_xpos[cam] = base + scale * shift
            if in_view(project(model, data, camera, points, width, height), width, height):
                return scale
    finally:
        data.cam_xpos[cam] = base
    return 0.0
