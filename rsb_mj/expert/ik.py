"""Damped-least-squares inverse kinematics on any compiled MuJoCo model.

The solver is generic over ``(model, site, joint names)``: it moves only the named hinge or
slide joints, keeps every other joint where the scratch :class:`mujoco.MjData` has it, and
drives the named site to a target position (world frame, metres) and, optionally, a target
orientation (world frame rotation matrix). Joint limits are respected by clamping after
every step. Reachable targets converge to 1 mm and 1 degree; a target that no restart reaches
raises :class:`~rsb_mj.errors.ExpertError` naming the residual error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError

#: Default convergence tolerance on position [m].
POS_TOL = 1e-3
#: Default convergence tolerance on orientation [rad] (1 degree).
ROT_TOL = np.deg2rad(1.0)


@dataclass(frozen=True)
class IKResult:
    """The outcome of one IK solve.

    Attributes:
        q: joint positions of the named joints [rad or m], in the order they were given.
        pos_error: final site position error [m].
        rot_error: final orientation error [rad] (0 when no orientation was asked).
        iterations: damped-least-squares iterations used, over all restarts.
    """

    q: np.ndarray
    pos_error: float
    rot_error: float
    iterations: int


def joint_ids(model: mujoco.MjModel, joint_names: Sequence[str]) -> np.ndarray:
    """Ids of the named hinge/slide joints.

    Raises:
        ExpertError: for an unknown joint (listing the available ones) or a ball/free joint.
    """
    ids = []
    for name in joint_names:
        jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if jid < 0:
            valid = [model.joint(i).name for i in range(model.njnt)]
            raise ExpertError(f"joint {name!r} not found; available joints: {', '.join(valid)}")
        if model.jnt_type[jid] not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            raise ExpertError(f"joint {name!r} is not a hinge or slide joint")
        ids.append(jid)
    return np.asarray(ids, dtype=int)


class ArmIK:
    """Damped-least-squares IK for one kinematic chain of a model.

    Args:
        model: the compiled model.
        site: name of the site to place (e.g. ``"right/gripper"``).
        joint_names: the joints the solver may move, in the order of ``q``.
        damping: DLS damping ``lambda`` (dimensionless; in [m] for the position rows).
        max_step: largest joint change per iteration [rad].

    Raises:
        ExpertError: if the site or a joint does not exist, listing the available names.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        site: str,
        joint_names: Sequence[str],
        *,
        damping: float = 1e-2,
        max_step: float = 0.3,
    ) -> None:
        self.model = model
        self.site_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, site)
        if self.site_id < 0:
            valid = [model.site(i).name for i in range(model.nsite)]
            raise ExpertError(f"site {site!r} not found; available sites: {', '.join(valid)}")
        self.site = site
        self.joint_names = tuple(joint_names)
        jids = joint_ids(model, joint_names)
        self.qpos_adr = model.jnt_qposadr[jids].copy()
        self.dof_adr = model.jnt_dofadr[jids].copy()
        limited = model.jnt_limited[jids].astype(bool)
        rng = model.jnt_range[jids]
        self.lower = np.where(limited, rng[:, 0], -np.inf)
        self.upper = np.where(limited, rng[:, 1], np.inf)
        self.damping = damping
        self.max_step = max_step
        self._data = mujoco.MjData(model)
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))

    def sync(self, data: mujoco.MjData) -> None:
        """Copy every joint position of ``data`` into the solver's scratch data."""
        self._data.qpos[:] = data.qpos

    def forward(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Site position [m] and rotation matrix (3, 3), world frame, for joints ``q``."""
        d = self._data
        d.qpos[self.qpos_adr] = q
        mujoco.mj_kinematics(self.model, d)
        return d.site_xpos[self.site_id].copy(), d.site_xmat[self.site_id].reshape(3, 3).copy()

    def clamp(self, q: np.ndarray) -> np.ndarray:
        """``q`` clamped into the joint limits."""
        return np.clip(q, self.lower, self.upper)

    def _error(
        self,
        pos: np.ndarray,
        rot: np.ndarray,
        target_pos: np.ndarray,
        target_rot: np.ndarray | None,
    ) -> np.ndarray:
        err_p = target_pos - pos
        if target_rot is None:
            return err_p
        # Rotation error as an axis-angle vector in the world frame.
        r_err = target_rot @ rot.T
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, r_err.reshape(-1))
        vel = np.zeros(3)
        mujoco.mju_quat2Vel(vel, quat, 1.0)
        return np.concatenate([err_p, vel])

    def solve(
        self,
        target_pos: np.ndarray,
        target_rot: np.ndarray | None = None,
        q0: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
        restarts: int = 8,
        max_iters: int = 200,
        pos_tol: float = POS_TOL,
        rot_tol: float = ROT_TOL,
    ) -> IKResult:
        """Joint positions that bring the site to a target pose.

        Args:
            target_pos: target site position, world frame [m], shape (3,).
            target_rot: target site rotation matrix, world frame, shape (3, 3); ``None``
                constrains the position only.
            q0: initial guess [rad]; defaults to the scratch data's current joints.
            rng: generator for restarts from random joint positions inside the limits
                (a fixed default generator when ``None``, so results are deterministic).
            restarts: random restarts after the first attempt fails.
            max_iters: iterations per attempt.
            pos_tol: position tolerance [m].
            rot_tol: orientation tolerance [rad].

        Returns:
            The converged :class:`IKResult`.

        Raises:
            ExpertError: if no attempt converges (the target is unreachable), with the best
                residual errors.
        """
        target_pos = np.asarray(target_pos, dtype=float)
        rng = rng if rng is not None else np.random.default_rng(0)
        start = self._data.qpos[self.qpos_adr].copy() if q0 is None else np.asarray(q0, float)
        best: IKResult | None = None
        total = 0
        lo = np.where(np.isfinite(self.lower), self.lower, -np.pi)
        hi = np.where(np.isfinite(self.upper), self.upper, np.pi)
        for attempt in range(restarts + 1):
            q = self.clamp(start if attempt == 0 else rng.uniform(lo, hi))
            result = self._attempt(q, target_pos, target_rot, max_iters, pos_tol, rot_tol)
            total += result.iterations
            result = IKResult(result.q, result.pos_error, result.rot_error, total)
            if result.pos_error <= pos_tol and result.rot_error <= rot_tol:
                return result
            if best is None or (result.pos_error + 0.1 * result.rot_error) < (
                best.pos_error + 0.1 * best.rot_error
            ):
                best = result
        assert best is not None
        raise ExpertError(
            f"IK for site {self.site!r}: target {np.round(target_pos, 4).tolist()} unreachable "
            f"after {restarts + 1} attempts (best error {best.pos_error * 1e3:.1f} mm, "
            f"{np.rad2deg(best.rot_error):.1f} deg; tolerance {pos_tol * 1e3:.1f} mm, "
            f"{np.rad2deg(rot_tol):.1f} deg)"
        )

    def _attempt(
        self,
        q: np.ndarray,
        target_pos: np.ndarray,
        target_rot: np.ndarray | None,
        max_iters: int,
        pos_tol: float,
        rot_tol: float,
    ) -> IKResult:
        m, d = self.model, self._data
        rows = 3 if target_rot is None else 6
        eye = np.eye(rows)
        pos_err = rot_err = np.inf
        for it in range(1, max_iters + 1):
            d.qpos[self.qpos_adr] = q
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            pos = d.site_xpos[self.site_id]
            rot = d.site_xmat[self.site_id].reshape(3, 3)
            err = self._error(pos, rot, target_pos, target_rot)
            pos_err = float(np.linalg.norm(err[:3]))
            rot_err = float(np.linalg.norm(err[3:])) if rows == 6 else 0.0
            if pos_err <= pos_tol and rot_err <= rot_tol:
                return IKResult(q.copy(), pos_err, rot_err, it)
            mujoco.mj_jacSite(m, d, self._jacp, self._jacr, self.site_id)
            jac = self._jacp[:, self.dof_adr]
            if rows == 6:
                jac = np.vstack([jac, self._jacr[:, self.dof_adr]])
            dq = jac.T @ np.linalg.solve(jac @ jac.T + self.damping**2 * eye, err)
            norm = np.abs(dq).max()
            if norm > self.max_step:
                dq *= self.max_step / norm
            q = self.clamp(q + dq)
        return IKResult(q.copy(), pos_err, rot_err, max_iters)
