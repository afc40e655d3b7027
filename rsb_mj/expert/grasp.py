"""Grasp poses from an object's collision geometry.

The object is summarised by an oriented box: the body-frame bounds of the corners of every
collision geom's local bounding box (``model.geom_aabb``) of the body and its children.
A top-down grasp closes the fingers along one horizontal box axis that fits between the open
finger pads; the tool center point (TCP, the gripper site between the pads) goes to the box's
horizontal center, at a height that keeps the finger tips off the table.

Frames: everything here is in the world frame, metres, except where a name says ``local``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import subtree_bodies

#: Usable gap between the open finger pads [m] (the Aloha gripper opens to about 58 mm).
MAX_GRASP_WIDTH = 0.054
#: Clearance kept between the finger tips and the table top [m].
TIP_CLEARANCE = 0.012
#: How far the finger tips extend past the TCP along the approach axis [m].
TIP_PAST_TCP = 0.006
#: Preferred depth of the TCP below the object's top [m].
GRASP_DEPTH = 0.022


@dataclass(frozen=True)
class ObjectBox:
    """An object's oriented bounding box.

    Attributes:
        center: box center, world frame [m], shape (3,).
        half: half extents along the box axes [m], shape (3,).
        axes: box axes as columns of a rotation matrix (world frame), shape (3, 3).
    """

    center: np.ndarray
    half: np.ndarray
    axes: np.ndarray

    @property
    def bottom(self) -> float:
        """Lowest world z of the box [m]."""
        return float(self.center[2] - np.abs(self.axes[2]) @ self.half)

    @property
    def top(self) -> float:
        """Highest world z of the box [m]."""
        return float(self.center[2] + np.abs(self.axes[2]) @ self.half)


def object_box(model: mujoco.MjModel, data: mujoco.MjData, body: str) -> ObjectBox:
    """The oriented box of ``body``'s collision geoms (itself and its children).

    Raises:
        ExpertError: if the body does not exist or has no collision geom.
    """
    bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    if bid < 0:
        raise ExpertError(f"object body {body!r} not found in the model")
    bodies = subtree_bodies(model, bid)
    pos = data.xpos[bid]
    rot = data.xmat[bid].reshape(3, 3)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    points = []
    for g in range(model.ngeom):
        if int(model.geom_bodyid[g]) not in bodies:
            continue
        if not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        c, h = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
        corners = c + signs * h
        world = corners @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        points.append((world - pos) @ rot)
    if not points:
        raise ExpertError(f"object body {body!r} has no collision geom to grasp")
    local = np.concatenate(points)
    lo, hi = local.min(axis=0), local.max(axis=0)
    center = pos + rot @ ((lo + hi) / 2)
    return ObjectBox(center=center, half=(hi - lo) / 2, axes=rot.copy())


def top_down_rotation(closing: np.ndarray) -> np.ndarray:
    """TCP rotation for a top-down grasp: approach (site z) down, fingers close along
    ``closing`` (site x, a horizontal unit vector)."""
    x = np.array([closing[0], closing[1], 0.0])
    x /= np.linalg.norm(x)
    z = np.array([0.0, 0.0, -1.0])
    return np.column_stack([x, np.cross(z, x), z])


@dataclass(frozen=True)
class GraspPlan:
    """A top-down grasp of one object.

    Attributes:
        position: TCP position at the grasp, world frame [m].
        closings: candidate closing directions (horizontal unit vectors), best first by width.
        width: object width along the closing direction [m].
    """

    position: np.ndarray
    closings: tuple[np.ndarray, ...]
    width: float


def plan_top_down(box: ObjectBox, table_z: float) -> GraspPlan:
    """Grasp position and the usable closing directions for ``box`` on a table at ``table_z``.

    Raises:
        ExpertError: if the object is wider than the gripper along every horizontal axis.
    """
    # The two box axes that are most horizontal.
    vertical = int(np.argmax(np.abs(box.axes[2])))
    horiz = [i for i in range(3) if i != vertical]
    horiz.sort(key=lambda i: box.half[i])
    closings: list[np.ndarray] = []
    width = 0.0
    for i in horiz:
        w = 2 * float(box.half[i])
        if w > MAX_GRASP_WIDTH:
            continue
        if not closings:
            width = w
        axis = box.axes[:, i].copy()
        axis[2] = 0.0
        axis /= np.linalg.norm(axis)
        # A near-square footprint can be grasped across either axis.
        if closings and w > width + 0.01:
            continue
        closings.extend([axis, -axis])
    if not closings:
        raise ExpertError(
            f"object is {2 * box.half[horiz[0]] * 1e3:.0f} mm wide at its narrowest; the "
            f"gripper opens to {MAX_GRASP_WIDTH * 1e3:.0f} mm"
        )
    z = max(box.top - GRASP_DEPTH, table_z + TIP_CLEARANCE + TIP_PAST_TCP)
    position = np.array([box.center[0], box.center[1], z])
    return GraspPlan(position=position, closings=tuple(closings), width=width)
