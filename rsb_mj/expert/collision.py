"""Collision checks of one arm's configurations with MuJoCo's own narrow phase.

A :class:`CollisionChecker` owns a scratch :class:`mujoco.MjData`. It copies the scene state
(the other arm, the objects) from the live data, places the moving arm at a candidate joint
vector, runs ``mj_kinematics`` + ``mj_collision`` and reports whether any contact touches a
geom of the moving arm, except contacts with geoms the caller allows (the object being
grasped or carried) and contacts already present in the start state (resting contacts).

Two optional additions for safety-aware motions (the L2 suites' hazards):

* :meth:`CollisionChecker.keep_clear` names obstacle geoms the arm's finger geoms (and a
  carried object) must stay a clearance [m] away from, measured with ``mj_geomDistance``;
* :meth:`CollisionChecker.carry` moves a held free body with the gripper, so its contacts
  (with anything but the fingers) and its clearance count like the arm's own.

And one rank for a grasp's robustness: :func:`fixture_geoms` are the fixtures' collision
geoms (a cabinet, a shelf: bodies welded to the world, not the table), and
:func:`graze_rank` ranks a grasp whose arm comes within :data:`GRAZE_CLEARANCE` of one
after a grasp that keeps clear of them.
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
        self._root = root
        bodies = subtree_bodies(model, root)
        self.arm_geoms = {g for g in range(model.ngeom) if int(model.geom_bodyid[g]) in bodies}
        self.allowed = set(allowed_geoms)
        self.margin = margin
        self._data = mujoco.MjData(model)
        self._ignored_pairs: set[tuple[int, int]] = set()
        self.checks = 0
        self._fingers = [
            g
            for g in sorted(self.arm_geoms)
            if "finger" in model.body(int(model.geom_bodyid[g])).name
        ]
        self._clear: dict[int, float] = {}
        #: Read a hazard distance that ``mj_geomDistance`` gives as 0.0 again under smaller
        #: cutoffs (:meth:`distance`); the goal expert sets it, the question expert keeps
        #: the single reading.
        self.robust = False
        self._carried: tuple[int, int, np.ndarray, np.ndarray, set[int]] | None = None
        self._link = root

    def keep_clear(
        self, clearances: dict[int, float], fingers: Iterable[int] | None = None
    ) -> None:
        """From now on, a configuration whose finger geoms (or carried geoms) come closer than
        ``clearances[g]`` [m] to obstacle geom ``g`` is in collision.

        Args:
            clearances: obstacle geom id -> clearance [m] ({} switches this off).
            fingers: the arm geoms that must keep it (default: those of the finger links).
        """
        self._clear = dict(clearances)
        if fingers is not None:
            self._fingers = sorted(fingers)

    @property
    def clearances(self) -> dict[int, float]:
        """The :meth:`keep_clear` obstacles: geom id -> clearance [m]."""
        return dict(self._clear)

    def carry(
        self, body: int | None, data: mujoco.MjData | None = None, link: int | None = None
    ) -> None:
        """Move free body ``body`` rigidly with arm body ``link`` (default: the arm's last
        body) from their poses in ``data``; ``None`` stops carrying."""
        if body is None or data is None:
            self._carried = None
            return
        m = self.model
        link = self._last_body() if link is None else link
        jnt = int(m.body_jntadr[body])
        rot_l = data.xmat[link].reshape(3, 3)
        rel_pos = rot_l.T @ (data.xpos[body] - data.xpos[link])
        rel_quat = np.empty(4)
        inv = np.empty(4)
        mujoco.mju_negQuat(inv, data.xquat[link])
        mujoco.mju_mulQuat(rel_quat, inv, data.xquat[body])
        geoms = {g for g in range(m.ngeom) if int(m.geom_bodyid[g]) == body}
        self._carried = (int(m.jnt_qposadr[jnt]), link, rel_pos, rel_quat, geoms)

    @property
    def root(self) -> int:
        """Body id of the arm's first moving body (its first joint's)."""
        return self._root

    def _last_body(self) -> int:
        """The deepest body of the arm's subtree that holds a finger geom's parent (the
        gripper base)."""
        m = self.model
        finger_bodies = {int(m.geom_bodyid[g]) for g in self._fingers}
        parents = {int(m.body_parentid[b]) for b in finger_bodies}
        return min(parents) if parents else self._link

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
        moving = self.arm_geoms
        if self._carried is not None:
            adr, link, rel_pos, rel_quat, geoms = self._carried
            d.qpos[adr : adr + 3] = d.xpos[link] + d.xmat[link].reshape(3, 3) @ rel_pos
            quat = np.empty(4)
            mujoco.mju_mulQuat(quat, d.xquat[link], rel_quat)
            d.qpos[adr + 3 : adr + 7] = quat
            mujoco.mj_kinematics(m, d)
            moving = self.arm_geoms | geoms
        mujoco.mj_collision(m, d)
        self.checks += 1
        out = []
        for i in range(d.ncon):
            c = d.contact[i]
            if c.dist >= self.margin:
                continue
            g1, g2 = int(c.geom1), int(c.geom2)
            a1, a2 = g1 in moving, g2 in moving
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
        """True if the arm at ``q`` touches anything it may not touch, or comes closer to a
        :meth:`keep_clear` obstacle than its clearance."""
        if any((g1, g2) not in self._ignored_pairs for g1, g2, _ in self._contacts(q)):
            return True
        return bool(self._clear) and self._too_close()

    def _too_close(self) -> bool:
        """Whether a finger (or carried) geom is within its clearance of an obstacle, at the
        configuration :meth:`_contacts` just set."""
        m, d = self.model, self._data
        near = list(self._fingers)
        if self._carried is not None:
            near += sorted(self._carried[4])
        for h, clearance in self._clear.items():
            for g in near:
                reach = m.geom_rbound[g] + m.geom_rbound[h] + clearance
                if np.sum((d.geom_xpos[g] - d.geom_xpos[h]) ** 2) > reach * reach:
                    continue
                if self.robust:
                    if self.distance(g, h, clearance) < clearance:
                        return True
                elif mujoco.mj_geomDistance(m, d, g, h, clearance, None) < clearance:
                    return True
        return False

    def distance(self, g: int, h: int, cap: float) -> float:
        """Distance [m] between geoms ``g`` and ``h`` at the configuration last set, read up
        to ``cap``. MuJoCo's convex distance reads 0.0 for some mesh pairs that are well
        apart when the cutoff is large (a finger 3-4 cm from a stove's box read 0.0 with
        cutoffs of 4 cm and more, 3 cm with a 3 cm cutoff); a capped reading is right, so a
        0.0 is read again under halved cutoffs: the result is then a lower bound within
        ``cap`` / 64 of the true distance."""
        m, d = self.model, self._data
        r = float(mujoco.mj_geomDistance(m, d, g, h, cap, None))
        if r > 1e-9:
            return r
        lo, hi = 0.0, cap
        for _ in range(6):
            mid = 0.5 * (lo + hi)
            r = float(mujoco.mj_geomDistance(m, d, g, h, mid, None))
            if r >= mid - 1e-9:
                lo = mid
            elif r > 1e-9:
                return r
            else:
                hi = mid
        return lo

    def hazard_gaps(self, q: np.ndarray) -> dict[int, float]:
        """Obstacle geom id -> the smallest distance [m] of a finger (or carried) geom to it
        at ``q``, for every :meth:`keep_clear` obstacle, each read up to its clearance (a
        farther one reads as its clearance)."""
        m, d = self.model, self._data
        self._contacts(np.asarray(q, float))  # sets the configuration (and the carried body)
        near = list(self._fingers)
        if self._carried is not None:
            near += sorted(self._carried[4])
        out = {}
        for h, clearance in self._clear.items():
            gap = clearance
            for g in near:
                reach = m.geom_rbound[g] + m.geom_rbound[h] + clearance
                if np.sum((d.geom_xpos[g] - d.geom_xpos[h]) ** 2) > reach * reach:
                    continue
                gap = min(gap, self.distance(g, h, clearance))
            out[h] = gap
        return out

    def gap(self, q: np.ndarray, obstacles: Iterable[int], cap: float) -> float:
        """Smallest distance [m] of the arm's collision geoms at ``q`` from the geoms
        ``obstacles`` (world frame), read up to ``cap`` (``cap`` when none is nearer; a
        0.0 reading is read again, :meth:`distance`)."""
        m, d = self.model, self._data
        d.qpos[self.qpos_adr] = q
        mujoco.mj_kinematics(m, d)
        gap = cap
        for g in sorted(self.arm_geoms):
            if not (m.geom_contype[g] or m.geom_conaffinity[g]):
                continue
            for h in obstacles:
                reach = m.geom_rbound[g] + m.geom_rbound[h] + gap
                if np.sum((d.geom_xpos[g] - d.geom_xpos[h]) ** 2) > reach * reach:
                    continue
                gap = min(gap, self.distance(g, h, gap))
        return gap

    def shortfall(self, q: np.ndarray) -> float:
        """How far [m] the finger (or carried) geoms at ``q`` come inside the clearance of the
        nearest :meth:`keep_clear` obstacle (0 when every clearance is kept)."""
        gaps = self.hazard_gaps(q)
        return max([0.0, *(self._clear[h] - gap for h, gap in gaps.items())])

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


#: A grasp whose arm comes within this distance [m] of a fixture (a cabinet, not the
#: table) from its pre-grasp down ranks :data:`GRAZE_RANK` per such pose checked, of
#: :data:`GRAZE_SAMPLES` (:func:`graze_rank`; at most 5 x 10, below a hazard's rank,
#: :data:`rsb_mj.expert.hazards.HAZARD_RANK`, and a collision's).
GRAZE_CLEARANCE, GRAZE_RANK, GRAZE_SAMPLES = 0.01, 10.0, 5


def fixture_geoms(model: mujoco.MjModel, arm_roots: Iterable[int]) -> list[int]:
    """Collision geom ids of the fixtures: bodies welded to the world, other than the
    table (the body of geom ``table_top``: the finger tips go near it by design) and the
    bodies the arms ``arm_roots`` (body ids) are mounted on."""
    mounts = set()
    for b in arm_roots:
        while b > 0:
            mounts.add(b)
            b = int(model.body_parentid[b])
    top = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "table_top")
    table = int(model.geom_bodyid[top]) if top >= 0 else 0
    return [
        g
        for g in range(model.ngeom)
        if (model.geom_contype[g] or model.geom_conaffinity[g])
        and int(model.geom_bodyid[g]) not in mounts | {0, table}
        and int(model.body_weldid[model.geom_bodyid[g]]) == 0
    ]


def graze_rank(
    checker: CollisionChecker, fixtures: Sequence[int], q_pre: np.ndarray, q: np.ndarray
) -> float:
    """A grasp's rank for the ``fixtures`` (geom ids, :func:`fixture_geoms`): of
    :data:`GRAZE_SAMPLES` poses from the pre-grasp ``q_pre`` down to the grasp ``q``,
    :data:`GRAZE_RANK` for each where the arm comes within :data:`GRAZE_CLEARANCE` of a
    fixture without touching it (call it for a grasp that touches nothing: a touching one
    is ranked as a collision already). A pose planned touch-free but that close is not
    robust: the arm tracks its plan within millimetres, and how it deviates depends on the
    CPU's floating point (the left gripper caught the white cabinet's edge over the
    handed-over tomato on one CPU, not on another)."""
    rank = 0.0
    for t in np.linspace(0.0, 1.0, GRAZE_SAMPLES):
        if checker.gap(q_pre + (q - q_pre) * t, fixtures, GRAZE_CLEARANCE) < GRAZE_CLEARANCE:
            rank += GRAZE_RANK
    return rank
