"""One Aloha arm as the expert sees it: names, IK, collision checks and action slots.

Names follow :mod:`rsb_mj.scene.aloha` (``{side}/waist`` ... ``{side}/wrist_rotate``, the
finger slides, the TCP site ``{side}/gripper``). The 14-D action and state layout is
``[left 6 joints, left gripper, right 6 joints, right gripper]``. :func:`choose_side` picks
the arm for a pick and place whose ends lie where the table's arms reach.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.ik import ArmIK
from rsb_mj.expert.tracking import servo_gains
from rsb_mj.scene.aloha import SIDES, arm_joints, finger_joints, gripper_site
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN

#: Offset of each side's block in the 14-D action/state vector.
ACTION_OFFSET: dict[str, int] = {"left": 0, "right": 7}
#: Joint speed limits used for planned motions [rad/s].
VMAX = np.array([1.5, 1.5, 1.5, 2.5, 2.5, 3.0])
#: Joint acceleration limits used for planned motions [rad/s^2].
AMAX = np.array([4.0, 4.0, 4.0, 6.0, 6.0, 8.0])


class Arm:
    """IK, collision checking and state access for the arm on ``side``.

    Args:
        model: a compiled model containing the Aloha (see :mod:`rsb_mj.scene.aloha`).
        side: ``"left"`` or ``"right"``.
    """

    def __init__(self, model: mujoco.MjModel, side: str) -> None:
        if side not in SIDES:
            raise ExpertError(f"unknown arm side {side!r}; valid choices: {', '.join(SIDES)}")
        self.side = side
        self.model = model
        self.joints = arm_joints(side)
        self.site = gripper_site(side)
        self.ik = ArmIK(model, self.site, self.joints)
        self.checker = CollisionChecker(model, self.joints)
        self.qpos_adr = np.array([model.joint(j).qposadr[0] for j in self.joints])
        self.finger_adr = np.array([model.joint(j).qposadr[0] for j in finger_joints(side)])
        self.site_id = model.site(self.site).id
        self.dof_adr = np.array([model.joint(j).dofadr[0] for j in self.joints])
        self.offset = ACTION_OFFSET[side]
        self.kp, self.kv = servo_gains(model, self.joints)

    def q(self, data: mujoco.MjData) -> np.ndarray:
        """Measured arm joint positions [rad]."""
        return data.qpos[self.qpos_adr].copy()

    def tcp(self, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """TCP position [m] and rotation matrix, world frame, as measured."""
        return data.site_xpos[self.site_id].copy(), data.site_xmat[self.site_id].reshape(3, 3)

    def base_xy(self, data: mujoco.MjData) -> np.ndarray:
        """World xy of the arm's waist axis [m]."""
        return data.xanchor[self.model.joint(self.joints[0]).id][:2].copy()


def choose_side(mover_xy: np.ndarray, place_xy: np.ndarray) -> str:
    """The arm for a pick at ``mover_xy`` and a place at ``place_xy`` (world xy [m]): the one
    whose worst distance outside its reach annulus [REACH_MIN, REACH_MAX] over both ends is
    smallest (ties: the nearer waist to the mover)."""

    def excess(side: str) -> tuple[float, float]:
        bx, by = ARM_BASE_XY[side]
        worst = 0.0
        for x, y in (mover_xy, place_xy):
            d = math.hypot(x - bx, y - by)
            worst = max(worst, REACH_MIN - d, d - REACH_MAX)
        return (max(worst, 0.0), math.hypot(mover_xy[0] - bx, mover_xy[1] - by))

    return min(SIDES, key=excess)
