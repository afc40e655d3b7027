"""Feed-forward for position servos, so the joints follow a planned trajectory closely.

A MuJoCo position actuator applies ``kp (ctrl - q) - kv qdot``. Following ``q_d(t)`` with
velocity ``v`` and acceleration ``a`` needs ``kp (ctrl - q_d) = kv v + M a`` (gravity is
compensated by the model's ``gravcomp``), so the servo target leads the planned position:

    ctrl = q_d + (kv / kp - dt / 2) v + (M a) / kp

with ``M`` the arm's block of the joint-space inertia matrix (couplings included);
``- dt / 2`` because each target is held for a whole control period ``dt``, so it aims at
the period's midpoint.
Without this lead the arm lags its plan by about ``kv / kp`` seconds (about 0.1 s on the
Aloha's shoulder), i.e. centimetres at the gripper. At rest (v = a = 0) the target is the
planned position itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError


def servo_gains(model: mujoco.MjModel, joint_names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(kp, kv) of the position actuator driving each named joint.

    Raises:
        ExpertError: if a joint has no position actuator.
    """
    kp, kv = [], []
    for name in joint_names:
        jid = model.joint(name).id
        acts = [
            i
            for i in range(model.nu)
            if model.actuator_trntype[i] == mujoco.mjtTrn.mjTRN_JOINT
            and model.actuator_trnid[i, 0] == jid
        ]
        if not acts:
            raise ExpertError(f"joint {name!r} has no actuator")
        i = acts[0]
        gain = float(model.actuator_gainprm[i, 0])
        if gain <= 0 or abs(model.actuator_biasprm[i, 1] + gain) > 1e-9:
            raise ExpertError(f"actuator {model.actuator(i).name!r} is not a position servo")
        kp.append(gain)
        kv.append(-float(model.actuator_biasprm[i, 2]))
    return np.array(kp), np.array(kv)


def joint_inertia(model: mujoco.MjModel, data: mujoco.MjData, dof_adr: np.ndarray) -> np.ndarray:
    """The joint-space inertia matrix (armature included) of the given dofs, (n, n), at
    ``data``'s state (``data.qM`` as of the last forward pass)."""
    full = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, full, data.qM)
    return full[np.ix_(dof_adr, dof_adr)].copy()


def lead(
    traj: np.ndarray,
    start: np.ndarray,
    dt: float,
    kp: np.ndarray,
    kv: np.ndarray,
    inertia: np.ndarray,
) -> np.ndarray:
    """Servo targets that make a PD position servo follow ``traj``.

    Args:
        traj: planned positions (T, n) at ``dt`` spacing, starting one ``dt`` after ``start``.
        start: the position at rest before the trajectory, shape (n,).
        dt: sample period [s].
        kp: servo stiffness per joint.
        kv: servo damping per joint.
        inertia: joint-space inertia of the joints, (n, n) (or its diagonal, (n,)).

    Returns:
        Targets (T, n); the last equals ``traj[-1]``.
    """
    full = np.vstack([start, traj, traj[-1:]])
    vel = (full[2:] - full[:-2]) / (2 * dt)
    acc = (full[2:] - 2 * full[1:-1] + full[:-2]) / dt**2
    # Each target is held for a whole control period: aim at the period's midpoint.
    inertia = np.asarray(inertia, float)
    torque = acc @ inertia.T if inertia.ndim == 2 else acc * inertia
    out = traj + (kv / kp - dt / 2) * vel + torque / kp
    out[-1] = traj[-1]
    return out
