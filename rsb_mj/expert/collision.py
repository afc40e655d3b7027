"""Collision checks of one arm's configurations with MuJoCo's own narrow phase.

A :class:`CollisionChecker` owns a scratch :class:`mujoco.MjData`. It copies the scene state
(the other arm, the objects) from the live data, places the moving arm at a candidate joint
vector, runs ``mj_kinematics`` + ``mj_collision`` and reports whether any contact touches a
geom of the moving arm, except contacts with geoms the caller allows (the object being
grasped or carried) and contacts already present in the start state (resting contacts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import mujoco
import numpy as np

from rsb_mj.expert.ik import joint_ids


def subtree_bodies(model: mujoco.MjModel, root: int) -> set[int]:
    """Ids of ``root`` and every body below it in the kinematic tree."""
    out = {root}
    for b in range(root + 1, model.nbody):
        if int(model.body_parentid[b]) in out:
            out.add(b)
    return out


class CollisionChecker:
    """Is the arm in collision at joint vector ``q``?

    Args:
        model: the compiled model.
        joint_names: the moving arm's joints, in the order of ``q``.
        allowed_geoms: geom ids whose contacts with the arm are ignored.
        margin: contacts with a signed distance below this count [m]; MuJoCo reports
            positive distances only up to the geoms' own ``margin``, so the default 0
            counts touching and penetrating contacts.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        joint_names: Sequence[str],
        *,
        allowed_geoms: Iterable[int] = (),
        margin: float = 0.0,
    ) -> None:
        self.model = model
        jids = joint_ids(model, joint_names)
        self.qpos_adr = model.jnt_qposadr[jids].copy()
        root = int(model.jnt_bodyid[jids[0]])
        bodies = subtree_bodies(model, root)
        self.arm_geoms = {g for g in range(model.ngeom) if int(model.geom_bodyid[g]) in bodies}
        self.allowed = set(allowed_geoms)
        self.margin = margin
        self._data = mujoco.MjData(model)
        self._ignored_pairs: set[tuple[int, int]] = set()
        self.checks = 0

    def set_scene(self, data: mujoco.MjData, q_start: np.ndarray | None = None) -> None:
        """Take every joint position from ``data``; contacts of the arm at ``q_start`` (or
        at the arm's current joints) are remembered and ignored from then on."""
        self._data.qpos[:] = data.qpos
        self._ignored_pairs = set()
        q = self._data.qpos[self.qpos_adr].copy() if q_start is None else q_start
        self._ignored_pairs = {(g1, g2) for g1, g2, _ in self._contacts(q)}

    def allow(self, geoms: Iterable[int]) -> None:
        """Ignore contacts of the arm with these geom ids as well."""
        self.allowed |= set(geoms)

    def _contacts(self, q: np.ndarray) -> list[tuple[int, int, float]]:
        """(geom, geom, signed distance [m]) of every counted arm contact at ``q``."""
        m, d = self.model, self._data
        d.qpos[self.qpos_adr] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        self.checks += 1
        out = []
        for i in range(d.ncon):
            c = d.contact[i]
            if c.dist >= self.margin:
                continue
            g1, g2 = int(c.geom1), int(c.geom2)
            a1, a2 = g1 in self.arm_geoms, g2 in self.arm_geoms
            if not (a1 or a2):
                continue
            if (a1 and g2 in self.allowed) or (a2 and g1 in self.allowed):
                continue
            out.append((min(g1, g2), max(g1, g2), float(c.dist)))
        return out

    def colliding_pairs(self, q: np.ndarray) -> list[tuple[str, str]]:
        """Names of the geom pairs in collision at ``q`` (for error messages)."""
        names = []
        for g1, g2, _ in self._contacts(np.asarray(q, float)):
            if (g1, g2) in self._ignored_pairs:
                continue
            names.append((self._geom_name(g1), self._geom_name(g2)))
        return names

    def _geom_name(self, g: int) -> str:
        body = self.model.body(int(self.model.geom_bodyid[g])).name
        return self.model.geom(g).name or f"geom {g} of body {body}"

    def in_collision(self, q: np.ndarray) -> bool:
        """True if the arm at ``q`` touches anything it may not touch."""
        return any((g1, g2) not in self._ignored_pairs for g1, g2, _ in self._contacts(q))

    def depth(self, q: np.ndarray) -> float:
        """Deepest penetration [m] of a counted contact at ``q`` (0 when collision-free)."""
        dists = [-d for g1, g2, d in self._contacts(q) if (g1, g2) not in self._ignored_pairs]
        return max([0.0, *dists])

    def segment_depth(self, q0: np.ndarray, q1: np.ndarray, resolution: float = 0.03) -> float:
        """Deepest penetration [m] along the straight joint-space segment ``q0 -> q1``."""
        q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
        n = max(1, int(np.ceil(np.abs(q1 - q0).max() / resolution)))
        return max(self.depth(q0 + (q1 - q0) * (k / n)) for k in range(n + 1))

    def segment_free(self, q0: np.ndarray, q1: np.ndarray, resolution: float = 0.03) -> bool:
        """True if the straight joint-space segment ``q0 -> q1`` is collision-free, checked
        every ``resolution`` rad of the largest joint motion (end points included)."""
        q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
        n = max(1, int(np.ceil(np.abs(q1 - q0).max() / resolution)))
        return all(not self.in_collision(q0 + (q1 - q0) * (k / n)) for k in range(1, n + 1))
