"""The expert for goal tasks: every ``On``/``In`` of the goal, one pick-and-place after another.

:class:`GoalExpert` reuses :class:`~rsb_mj.expert.pick_place.PickPlaceExpert`'s motion
primitives (collision-free joint-space plans, straight Cartesian descents, grasp search over
closing axes and tilts) and plans, for each placement it is told
(:func:`rsb_mj.expert.placements.placements`: the goal's ``On``/``In``, in the order they can
be done, each with the objects riding on its mover):

* the **place**: an object's or fixture's current centre (``On a b``), or a site's centre
  (``On a region``, ``In a site``), measured when that placement starts;
* the **arm**: the one whose waist is in reach of both the mover and the place
  (:func:`choose_side`);
* the **heights**: the lift takes the object's bottom ``CARRY_CLEARANCE`` above the table
  (lower, down to :data:`LIFT_RISE`, where that is out of reach);
  the collision-checked carry (the held object checked too) ends that far above the
  support's top (:data:`HIGH_CLEARANCE` over a high support); the release puts it
  ``RELEASE_HEIGHT`` above the support's top (a cabinet, a shelf, a plate); where the pose
  above is out of reach, :data:`LOW_CLEARANCES` over the support are tried;
* the **handover**, only when even those are out of the holding arm's reach and the other
  arm reaches one (:meth:`GoalExpert._handover`): the holding arm sets the mover down on a
  free spot of the table in both arms' reach, lets go and goes home; the other arm takes it
  where the first one did and places it (:meth:`GoalExpert._relay`). Every placement that
  succeeds without one keeps its motions;
* the **hazards**: the objects and fixtures the task's ``:cost`` names keep their clearance
  (:mod:`rsb_mj.expert.hazards`: the cost's distance + 1.5 cm), the mover and its riders
  excepted: what stands on or in the mover at ``:init`` (its placement's ``riders``,
  VLA-Arena's water balls in a mug) moves with it, so the carry's collision check ignores
  it. Where a hazard is named, the grasp is ranked by how far its descent comes inside a
  clearance (:meth:`GoalExpert._hazard_cost`); a motion that starts or ends inside one keeps the
  distance it has there instead of none (:meth:`GoalExpert._move_joint`); a mover grasped
  inside one is lifted away from the hazard as it rises (:meth:`GoalExpert._away`); the
  place's pose is one whose release, lowered, also keeps the clearances, at the region's
  centre or another spot of the region (:meth:`GoalExpert._clear_spots`,
  :meth:`GoalExpert._place_pose`). Files without a hazard keep every motion.

Usage::

    expert = GoalExpert(env)          # env: a GoalEnv, reset
    while not expert.done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.arm import Arm
from rsb_mj.expert.articulation import Operation, drawer_spot, operate, plan_steps
from rsb_mj.expert.grasp import (
    GRASP_DEPTH,
    TIP_CLEARANCE,
    TIP_PAST_TCP,
    object_box,
    plan_top_down,
    risen,
    top_down_rotation,
)
from rsb_mj.expert.hazards import HAZARD_MARGIN, hazard_clearances
from rsb_mj.expert.lay import lay_down, sloped
from rsb_mj.expert.pick_place import (
    APPROACH_HEIGHT,
    CARRY_CLEARANCE,
    GRASP_TILTS,
    PLACE_YAWS,
    RELEASE_HEIGHT,
    RETREAT_HEIGHT,
    PickPlaceExpert,
    control_rate,
)
from rsb_mj.expert.placements import Placement, placements
from rsb_mj.expert.world import World
from rsb_mj.lang.task import Relation
from rsb_mj.scene.aloha import HOME_ARM, SIDES
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN, TABLE_TOP_Z

#: A support whose top is this far above the table [m] is high: the carry over it keeps
#: :data:`HIGH_CLEARANCE` instead of ``CARRY_CLEARANCE`` (the arm reaches less far up).
HIGH_SUPPORT, HIGH_CLEARANCE = 0.05, 0.07


#: How far [m] a held object must rise with the lift (else it slipped: a grasp failure).
HELD_RISE = 0.03
#: Clearance [m] of the carried object's bottom over a container it is lowered into.
IN_CLEARANCE = 0.03
#: Least rise [m] of the lift (an object picked from a cabinet's top, above the carry height).
LIFT_RISE = 0.05
#: Lower lifts tried, evenly spaced down to :data:`LIFT_RISE`, when the straight lift to
#: the carry height is out of reach (an object across the table's middle).
LOW_LIFTS = 3
#: Extra heights [m] tried, in order, above the support when the pose above it collides.
PLACE_RAISE = (0.0, 0.04, 0.08)
#: Rim grasp (a bowl, a plate, a mug too wide for a top-down grasp): the TCP goes this far
#: inside the rim [m] and this far below the object's top [m], fingers closing radially.
RIM_INSET, RIM_DEPTH = 0.012, 0.016
#: Directions tried around the rim (evenly spaced).
RIM_DIRECTIONS = 12
#: Rim directions closer than this (cosine) to a mug's handle are not tried.
HANDLE_COS = math.cos(math.radians(50.0))
#: Share of the mover's half width whose circle :meth:`GoalExpert._support_top` probes.
FOOTPRINT = 0.8
#: Share of a region's half sizes at whose corners (and its centre) its owner must cover
#: it from above for the region to be under an overhang (:meth:`GoalExpert._slot`).
COVERED = 0.8
#: Turns [rad] of the side insertion's direction away from straight into the opening,
#: tried in order (an arm beside the opening reaches in at a slant).
INSERT_YAWS = (0.0, 0.3, -0.3, 0.6, -0.6, 0.9, -0.9)
#: Margins [m] of the side insertion: the mover starts this far outside the opening, stops
#: no nearer the back than this, and its origin goes this far inside the region.
INSERT_OUTSIDE, INSERT_BACK, INSERT_INSIDE = 0.03, 0.01, 0.01
#: Steps [m] between the heights of the side insertion tried (lowest first) and between
#: its depths (shallowest first).
INSERT_STEP, INSERT_DEPTH_STEP = 0.01, 0.005
#: Gripper command [0 closed .. 1 open] of the release under an overhang: fully open (half
#: open still held a 2.8 cm book).
INSERT_RELEASE = 1.0
#: Drops [m] of the open gripper tried, largest first, before it backs out of a slot: its
#: lower finger, outside the opening, off the mover's end that overhangs the board.
INSERT_DROPS = (0.015, 0.01, 0.005)
#: Clearances [m] of the mover's bottom over the support's top tried, in order, when the
#: pose above the place at the carry clearance is out of the arm's reach (a bowl on a
#: cabinet, a book over the caddy's far compartment): by the arm holding the mover, else,
#: after a handover (:meth:`GoalExpert._relay`), by the other one.
LOW_CLEARANCES = (0.03, 0.02)
#: Placing in a region near a hazard (:meth:`GoalExpert._clear_spots`): the most grid
#: points tried besides its centre, the share of its half sizes searched, the grid step [m].
SPOT_TRIES, SPOT_SHARE, SPOT_STEP = 8, 0.7, 0.01
#: Grasp rank of a pose inside a hazard's cost distance and of one inside its clearance
#: only, and the poses checked from the pre-grasp down to the grasp
#: (:meth:`GoalExpert._hazard_cost`; at most 5 x 150, below a collision's 1000).
HAZARD_RANK, HAZARD_NEAR_RANK, HAZARD_SAMPLES = 150.0, 20.0, 5
#: A grasp whose arm comes within this distance [m] of a fixture (a cabinet, not the
#: table) from its pre-grasp down ranks :data:`GRAZE_RANK` per such pose checked, of
#: :data:`HAZARD_SAMPLES` (:meth:`GoalExpert._graze_cost`; at most 5 x 10, below a
#: hazard's rank and a collision's).
GRAZE_CLEARANCE, GRAZE_RANK = 0.01, 10.0
#: Slack [m] under the distance to a hazard at a motion's end that the motion keeps
#: (:meth:`GoalExpert._move_joint`).
GAP_SLACK = 0.001
#: How far [m] the lift moves the mover sideways, away from a hazard whose clearance it (or
#: a finger) is inside when grasped (:meth:`GoalExpert._away`).
ESCAPE = 0.05
#: Where the handover spot may lie: each waist this far from it or farther, and this far
#: or nearer [m] (inside both arms' reach annulus, with a margin).
HANDOVER_NEAR, HANDOVER_FAR = 0.25, 0.50
#: Grid step [m] of the handover spots tried on the table, and the free margin [m] around
#: the mover's footprint there (rays straight down must meet the table top).
HANDOVER_STEP, HANDOVER_MARGIN = 0.03, 0.04


@dataclass(frozen=True)
class Slot:
    """A region under an overhang (a shelf's compartment), reached from its open side.

    Attributes:
        site: the region's site id.
        floor, ceiling: world z [m] of the surface below the region's centre and of the
            owner's underside above it.
        inward: unit world xy direction from the opening into the region.
        opening, back: signed distances [m] along ``inward`` from the region's centre to
            the opening's plane (negative) and to the first surface behind (positive).
    """

    site: int
    floor: float
    ceiling: float
    inward: np.ndarray
    opening: float
    back: float


def _leveling(axes: np.ndarray) -> np.ndarray:
    """The smallest rotation (3x3, world) that turns the most vertical of the box ``axes``
    (columns, world) straight up or down: it levels a held object that hangs tilted."""
    k = int(np.argmax(np.abs(axes[2])))
    a = axes[:, k] * np.sign(axes[2, k])
    v = np.cross(a, [0.0, 0.0, 1.0])
    s, c = float(np.linalg.norm(v)), float(a[2])
    if s < 1e-9:
        return np.eye(3)
    vx = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + vx + vx @ vx * ((1.0 - c) / s**2)


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


class GoalExpert(PickPlaceExpert):
    """Scripted expert for a :class:`~rsb_mj.env.rsb_env.RsbEnv`: moves each goal mover to
    its place in turn (module docstring).

    Args:
        env: a :class:`~rsb_mj.env.rsb_env.RsbEnv` of a goal task (or the view a policy is handed).
        asked: the placements to carry out, in order; by default the task's
            (:func:`rsb_mj.expert.placements.placements` of ``env.unwrapped.task``).
        rng, safe: as :class:`PickPlaceExpert`.

    Attributes:
        placements: the placements it carries out, in order.
        done, failure, phase, side, warnings, place_center: as :class:`PickPlaceExpert`.
    """

    #: A knife or a fork is taken by its handle (at least 4 mm of it between the fingers),
    #: not at the middle of its low blade or neck.
    top_down_overlap = 0.004

    def __init__(
        self,
        env: Any,
        asked: Sequence[Placement] | None = None,
        *,
        rng: np.random.Generator | None = None,
        safe: bool = True,
    ) -> None:
        self._init_state(env, rng=rng, safe=safe)
        if asked is None:
            asked = placements(env.unwrapped.task)
        self.placements: tuple[Placement, ...] = tuple(asked)
        self.mover = self.placements[0].mover if self.placements else ""
        #: Geom ids of the objects riding on the current mover (its placement's riders).
        self._rider_geoms: set[int] = set()
        #: True while the arm that was handed the mover places it (:meth:`_relay`).
        self._handed = False
        #: Where the last grasp took the mover: the TCP in the mover's frame [m].
        self._grasp_local: np.ndarray | None = None
        #: Geom id -> clearance [m] of the hazards the current mover keeps clear of.
        self._hazards: dict[int, float] = {}
        #: Where in its region the current mover may go (:meth:`_clear_spots`; [] : the
        #: place's centre), and the TCP's world z [m] at its release while the pose above
        #: the place is chosen near a hazard (None otherwise: :meth:`_place_pose`).
        self._spots: list[np.ndarray] = []
        self._lower_to: float | None = None
        #: Collision geom ids of the fixtures a grasp keeps clear of (:func:`fixture_geoms`).
        self._fixtures: list[int] = []

    def _start(self) -> None:
        u = self.env.unwrapped
        self.dt = 1.0 / control_rate(self.env)
        self.world = World(
            model=u.model,
            data=u.data,
            table_top_z=TABLE_TOP_Z,
            seed=int(u.seed),
            hazards=hazard_clearances(u.model, u.task.problem),
        )
        self._arms = {s: Arm(u.model, s) for s in SIDES}
        for a in self._arms.values():
            a.checker.robust = True
        self._fixtures = fixture_geoms(u.model, [a.checker.root for a in self._arms.values()])
        self._rest = np.zeros(14)
        for a in self._arms.values():
            self._rest[a.offset : a.offset + 6] = a.q(u.data)
            self._rest[a.offset + 6] = 1.0
        if self._rng is None:
            self._rng = np.random.default_rng(self.world.seed)
        self._use("right")
        self._last = self._action(self._target_q, 1.0)
        self._script = self._all()

    def _use(self, side: str) -> None:
        """Switch to the arm on ``side`` (the other holds its pose, gripper open)."""
        w = self.world
        self.side = side
        self.arm = self._arms[side]
        self._gripper = 1.0
        self._target_q = self.arm.q(w.data)

    def _grasp_pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """By the object: a hollow stand-in by its rim (:meth:`_rim_grasp`), one with a
        handle too wide to take whole by the handle (:meth:`_handle_grasp`), else a
        top-down grasp (:meth:`PickPlaceExpert._grasp_pose`), and for an object too wide
        for the gripper a grasp across its outline's edge."""
        if self._rim(self.mover) is not None:
            return self._rim_grasp()
        handle = self._handle(self.mover)
        if self._handed and handle is None and self._grasp_local is not None:
            return self._regrasp()
        if handle is not None:
            try:
                return super()._grasp_pose()
            except ExpertError:
                return self._handle_grasp(*handle)
        try:
            return super()._grasp_pose()
        except ExpertError as exc:
            if "wide at its narrowest" not in str(exc):
                raise
            return self._rim_grasp()

    def _regrasp(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, pre-grasp joints) of the receiving arm's top-down grasp
        of a handed-over mover (:meth:`_relay`): at the point of the mover where the first
        arm took it (a round object turned in the fingers would be taken above its middle by
        a grasp from its tilted box's top), closing across its slice there."""
        w = self.world
        assert self._grasp_local is not None
        bid = w.model.body(self.mover).id
        p = w.data.xpos[bid] + w.data.xmat[bid].reshape(3, 3) @ self._grasp_local
        plan = plan_top_down(
            w.model, w.data, self.mover, w.table_top_z, min_overlap=self.top_down_overlap
        )
        return self._best_grasp([(p, c[:2]) for c in plan.closings], "top-down")

    def _rim(self, body: str) -> tuple[np.ndarray, float, float, np.ndarray | None] | None:
        """The rim of ``body`` when it is a hollow stand-in (a bowl, a mug): its axis's
        point at the rim's top (world, m), the wall's mid radius and depth [m], and the
        world direction (unit, xy) of a handle beside it (None without one); None for an
        object without a rim (solid, or the user's original)."""
        u = self.env.unwrapped
        if u.scene.sources.get(body) != "standins":
            return None
        rim = getattr(CATEGORIES.get(u.task.objects[body]), "rim", None)
        if rim is None:
            return None
        w = self.world
        bid = w.model.body(body).id
        rot = w.data.xmat[bid].reshape(3, 3)
        axis = w.data.xpos[bid] + rot @ np.array([rim.center[0], rim.center[1], rim.top])
        offset = (rot @ np.array([rim.center[0], rim.center[1], 0.0]))[:2]
        handle = None
        if np.linalg.norm(offset) > 1e-3:  # the box centre lies between the cup and its handle
            handle = -offset / np.linalg.norm(offset)
        return axis, rim.radius, rim.depth, handle

    def _rim_grasp(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, pre-grasp joints) of a grasp across the wall of a wide
        object: one finger inside, one outside, closing radially. A hollow stand-in's wall
        (:meth:`_rim`) is taken :data:`RIM_DEPTH` below its top at its mid-surface, away from
        a handle; another wide object :data:`RIM_INSET` inside its outline. Directions facing
        the arm come first; collision-free and untilted ones win."""
        w, arm = self.world, self.arm
        body = self.mover
        box = object_box(w.model, w.data, body)
        rim = self._rim(body)
        handle = None
        if rim is not None:
            axis, radius, depth, handle = rim
            center, top = axis[:2], float(axis[2])
            z = top - min(RIM_DEPTH, depth - TIP_PAST_TCP - 0.002)
        else:
            center, top = box.center[:2], box.top
            radius = float(min(box.half[0], box.half[1])) - RIM_INSET
            z = top - RIM_DEPTH
        z = max(z, w.table_top_z + TIP_CLEARANCE + TIP_PAST_TCP)
        base = arm.base_xy(w.data)
        toward = base - center
        toward /= max(float(np.linalg.norm(toward)), 1e-9)
        angles = np.arange(RIM_DIRECTIONS) * 2 * np.pi / RIM_DIRECTIONS
        dirs = [np.array([np.cos(a), np.sin(a)]) for a in angles]
        if handle is not None:  # keep the fingers off the handle
            dirs = [d for d in dirs if float(d @ handle) < HANDLE_COS]
        dirs.sort(key=lambda d: -float(d @ toward))
        return self._best_grasp([(np.array([*(center + radius * d), z]), d) for d in dirs], "rim")

    def _handle(self, body: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Where a handle grasp takes ``body`` when it is a stand-in with a handle (a pan, a
        moka pot): the TCP position (world, m) and the horizontal closing direction across
        the bar (unit); None without a handle."""
        u = self.env.unwrapped
        if u.scene.sources.get(body) != "standins":
            return None
        handle = getattr(CATEGORIES.get(u.task.objects[body]), "handle", None)
        if handle is None:
            return None
        w = self.world
        bid = w.model.body(body).id
        rot = w.data.xmat[bid].reshape(3, 3)
        local = np.array(handle.center)
        local[2] = max(local[2], handle.top - GRASP_DEPTH)
        p = w.data.xpos[bid] + rot @ local
        along = rot @ np.array([handle.axis[0], handle.axis[1], 0.0])
        across = np.array([-along[1], along[0]])
        return p, across / max(float(np.linalg.norm(across)), 1e-9)

    def _handle_grasp(self, p: np.ndarray, across: np.ndarray):
        """(TCP position, rotation, pre-grasp joints) of a grasp closing across a handle's
        bar at ``p``, the fingers along ``across`` (either way round)."""
        return self._best_grasp([(p, across), (p, -across)], "handle")

    def _best_grasp(
        self, candidates: list[tuple[np.ndarray, np.ndarray]], kind: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The best of ``candidates`` (TCP position, horizontal closing direction), in order
        of preference: reachable, then collision-free, untilted and earliest first."""
        w, arm = self.world, self.arm
        arm.checker.allowed = set(w.body_geoms(self.mover)) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        best = None
        errors: list[str] = []
        for tilt in GRASP_TILTS[:3]:
            for rank, (p, d) in enumerate(candidates):
                rot = top_down_rotation(np.array([d[0], d[1], 0.0]), tilt)
                try:
                    q = arm.ik.solve(p, rot, q0=self._target_q, rng=self._rng).q
                    q_pre = arm.ik.solve(
                        p - APPROACH_HEIGHT * rot[:, 2], rot, q0=q, rng=self._rng
                    ).q
                except ExpertError as exc:
                    errors.append(str(exc))
                    continue
                depth = arm.checker.segment_depth(q_pre, q, resolution=0.02)
                cost = rank + 100.0 * abs(tilt) + (0.0 if depth == 0 else 1e3 + 1e5 * depth)
                if self._hazards:
                    cost += self._hazard_cost(q_pre, q, depth)
                cost += self._graze_cost(q_pre, q, depth)
                if best is None or cost < best[0]:
                    best = (cost, p, rot, q_pre)
            if best is not None and best[0] < 1e3:
                break
        if best is None:
            raise ExpertError(f"no reachable {kind} grasp: " + "; ".join(errors[:3]))
        if best[0] >= 1e3:
            self.warnings.append(f"every {kind} grasp collides")
        return best[1], best[2], best[3]

    def _clear_spots(
        self, rel: Relation, xy: np.ndarray, hazards: dict[int, float]
    ) -> list[np.ndarray]:
        """Where in ``rel``'s region (world xy [m]; its centre ``xy``) the mover may go when a
        ``:cost`` names a hazard (VLA-Arena's lemon "between the teapots"), in the order
        tried (:meth:`_place_pose`): the centre, then up to :data:`SPOT_TRIES` points of a
        grid over the inner :data:`SPOT_SHARE` of the region, those whose mover footprint
        is farthest outside the hazards' clearances first (horizontal distances to each
        hazard's box footprint; of two as far, the nearer the centre)."""
        w = self.world
        sid = w.model.site(rel.place).id
        mat = w.data.site_xmat[sid].reshape(3, 3)
        half = w.model.site_size[sid][:2] * SPOT_SHARE
        mover = object_box(w.model, w.data, rel.mover)
        radius = float(max(mover.half[0], mover.half[1]))
        bodies: dict[int, float] = {}
        for g, c in hazards.items():
            b = int(w.model.geom_bodyid[g])
            bodies[b] = max(bodies.get(b, 0.0), c)
        boxes = [(object_box(w.model, w.data, w.model.body(b).name), c) for b, c in bodies.items()]

        def room(p: np.ndarray) -> float:
            out = np.inf
            for box, c in boxes:
                local = box.axes[:2, :2].T @ (p - box.center[:2])
                nearest = np.clip(local, -box.half[:2], box.half[:2])
                out = min(out, float(np.linalg.norm(local - nearest)) - radius - c)
            return out

        grid = []
        for u in np.arange(-half[0], half[0] + 1e-9, SPOT_STEP):
            for v in np.arange(-half[1], half[1] + 1e-9, SPOT_STEP):
                p = xy + mat[:2, :2] @ np.array([u, v])
                grid.append((-round(room(p), 4), float(np.hypot(u, v)), p))
        grid.sort(key=lambda t: t[:2])
        return [xy, *(p for *_, p in grid[:SPOT_TRIES])]

    def _place_pose(
        self,
        offset: np.ndarray,
        rot: np.ndarray,
        height: float,
        yaws: Sequence[float] = PLACE_YAWS,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`PickPlaceExpert._place_pose`; where a ``:cost`` names a hazard, the pose
        also keeps the clearance when lowered to the release (``_lower_to``, the TCP's
        world z [m]) and on the way down, at the first of the spots (:meth:`_clear_spots`)
        and yaws that does, ``place_center`` moved there; where none does, the
        first whose release comes least deep into a collision, then least near touching a
        hazard (within :data:`~rsb_mj.expert.hazards.HAZARD_MARGIN`), to the mm (with a
        warning: how deep inside a larger distance it is does not change what it costs)."""
        if self._lower_to is None:
            return super()._place_pose(offset, rot, height, yaws)
        arm = self.arm
        zone = self.place_center.copy()
        least = None  # (penetration, nearness) [m] at the release, and the pose
        for spot in self._spots or [zone[:2]]:
            self.place_center = np.array([spot[0], spot[1], zone[2]])
            for yaw in yaws:
                try:
                    p, r, q = super()._place_pose(offset, rot, height, (yaw,))
                except ExpertError:
                    continue
                low = np.array([p[0], p[1], self._lower_to])
                try:
                    q_low = arm.ik.solve(low, r, q0=q, rng=self._rng).q
                except ExpertError:
                    continue
                if not arm.checker.in_collision(q_low) and arm.checker.segment_free(q, q_low):
                    return p, r, q
                gaps = arm.checker.hazard_gaps(q_low)
                worse = (
                    round(arm.checker.depth(q_low), 3),
                    round(max(0.0, *(HAZARD_MARGIN - g for g in gaps.values())), 3),
                )
                if least is None or worse < least[0]:
                    least = (worse, self.place_center.copy(), p, r, q)
        self.place_center = zone
        if least is None:
            return super()._place_pose(offset, rot, height, yaws)  # raises, saying why
        self.warnings.append("no release keeps the hazards' clearance: the least close one")
        self.place_center = least[1]
        return least[2], least[3], least[4]

    def _hazard_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """A grasp's rank for the hazards (:meth:`PickPlaceExpert._hazard_cost`): where a
        ``:cost`` names one, of :data:`HAZARD_SAMPLES` poses from the pre-grasp ``q_pre``
        down to the grasp ``q``, :data:`HAZARD_RANK` for each whose fingers are inside a
        hazard's cost distance (its clearance less :data:`HAZARD_MARGIN`: those steps cost)
        and :data:`HAZARD_NEAR_RANK` for each inside the clearance only (a grasp across a
        tomato beside the stove, not towards it); grasps as costly keep their order."""
        checker = self.arm.checker
        if not (self._hazards and checker.clearances):
            return super()._hazard_cost(q_pre, q, depth)
        rank = 0.0
        for t in np.linspace(0.0, 1.0, HAZARD_SAMPLES):
            short = checker.shortfall(q_pre + (q - q_pre) * t)
            if short > HAZARD_MARGIN:
                rank += HAZARD_RANK
            elif short > 0:
                rank += HAZARD_NEAR_RANK
        return rank

    def _graze_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """A grasp's rank for the fixtures (:meth:`PickPlaceExpert._graze_cost`): of
        :data:`HAZARD_SAMPLES` poses from the pre-grasp ``q_pre`` down to the grasp ``q``,
        :data:`GRAZE_RANK` for each where the arm comes within :data:`GRAZE_CLEARANCE` of a
        fixture (:func:`fixture_geoms`) without touching it (a touching grasp, ``depth`` >
        0, is ranked as a collision already). A pose planned touch-free but that close is
        not robust: the arm tracks its plan within millimetres, and how it deviates
        depends on the CPU's floating point (the left gripper caught the white cabinet's
        edge over the handed-over tomato on one CPU, not on another)."""
        if depth > 0 or not self._fixtures:
            return 0.0
        checker = self.arm.checker
        rank = 0.0
        for t in np.linspace(0.0, 1.0, HAZARD_SAMPLES):
            if checker.gap(q_pre + (q - q_pre) * t, self._fixtures, GRAZE_CLEARANCE) < (
                GRAZE_CLEARANCE
            ):
                rank += GRAZE_RANK
        return rank

    def _move_joint(self, q_goal: np.ndarray, gripper: float, allowed: tuple[int, ...] = ()):
        """:meth:`PickPlaceExpert._move_joint`, where a ``:cost`` names a hazard and the start
        or the goal is inside its clearance (the pre-grasp over a lemon beside the candle):
        that hazard's clearance is left out (the cost counts steps inside its distance, not
        how deep: the quickest path is the cheapest there), every other hazard's is kept,
        where the clearances used to be dropped altogether when the path failed."""
        w, arm = self.world, self.arm
        clear = arm.checker.clearances
        if not (self._hazards and clear):
            return super()._move_joint(q_goal, gripper, allowed)
        arm.checker.allowed = set(allowed) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        ends = (arm.checker.hazard_gaps(self._target_q), arm.checker.hazard_gaps(q_goal))
        kept = {h: c for h, c in clear.items() if ends[0][h] >= c and ends[1][h] >= c}
        if len(kept) == len(clear):
            return super()._move_joint(q_goal, gripper, allowed)
        arm.checker.keep_clear(kept)
        try:
            return super()._move_joint(q_goal, gripper, allowed)
        finally:
            arm.checker.keep_clear(clear)

    def _away(self, p: np.ndarray) -> np.ndarray:
        """Where the lift from grasp point ``p`` (world, m) ends in xy when the mover or the
        fingers are inside a hazard's clearance there, by no more than :data:`ESCAPE` (a
        longer lift that cannot leave the clearance only stays longer inside the cost's
        distance): :data:`ESCAPE` [m] away, horizontally,
        from the nearest point of the nearest such hazard's box footprint (from its centre
        when the mover is over it), so that the lift rises and leaves at once; ``p``'s own
        xy otherwise."""
        w, arm = self.world, self.arm
        if not (self._hazards and arm.checker.clearances):
            return p[:2].copy()
        arm.checker.set_scene(w.data, q_start=self._target_q)
        gaps = arm.checker.hazard_gaps(self._target_q)
        arm.checker.carry(w.model.body(self.mover).id, w.data)
        try:  # the mover too, as held
            held = arm.checker.hazard_gaps(self._target_q)
        finally:
            arm.checker.carry(None)
        inside = [
            (min(gaps[h], held[h]), h)
            for h, c in self._hazards.items()
            if c - ESCAPE <= min(gaps[h], held[h]) < c
        ]
        if not inside:
            return p[:2].copy()
        hazard = w.model.body(int(w.model.geom_bodyid[min(inside)[1]])).name
        box = object_box(w.model, w.data, hazard)
        mover = w.data.xpos[w.model.body(self.mover).id][:2]
        local = box.axes[:2, :2].T @ (mover - box.center[:2])
        nearest = box.center[:2] + box.axes[:2, :2] @ np.clip(local, -box.half[:2], box.half[:2])
        out = mover - nearest
        if np.linalg.norm(out) < 1e-3:  # over the hazard: away from its centre
            out = mover - box.center[:2]
        norm = float(np.linalg.norm(out))
        if norm < 1e-6:
            return p[:2].copy()
        return p[:2] + ESCAPE * out / norm

    def _support_top(self, place: str, xy: np.ndarray, reach: float, top: float) -> float:
        """Where the mover comes to rest on object ``place`` near world ``xy``: the highest
        surface of ``place`` that rays straight down hit at ``xy`` and on a circle of radius
        ``reach`` [m] (the mover's footprint) around it, world z [m]; ``top`` (the place's
        top) when no ray hits it. A bowl's or a plate's floor is lower than its rim."""
        w = self.world
        root = int(w.model.body_rootid[w.model.body(place).id])
        mover = w.model.body(self.mover).id
        geomid = np.zeros(1, dtype=np.int32)
        hits = []
        offsets = [np.zeros(2)] + [
            reach * np.array([np.cos(a), np.sin(a)]) for a in np.arange(8) * np.pi / 4
        ]
        for off in offsets:
            start = np.array([xy[0] + off[0], xy[1] + off[1], top + 0.05])
            dist = mujoco.mj_ray(
                w.model, w.data, start, np.array([0.0, 0.0, -1.0]), None, 1, mover, geomid
            )
            g = int(geomid[0])
            if g < 0 or dist < 0:
                continue
            if int(w.model.body_rootid[int(w.model.geom_bodyid[g])]) != root:
                continue
            hits.append(float(start[2] - dist))
        return max(hits) if hits else top

    def _place_of(self, rel: Relation) -> tuple[np.ndarray, float, float]:
        """World (x, y) of where ``rel`` puts its mover, the support's top z and the z of
        the surface the mover comes to rest on there [m] (:meth:`_support_top`; a site's:
        its top, or its floor for ``In``)."""
        w = self.world
        if rel.kind == "object":
            box = object_box(w.model, w.data, rel.place)
            bid = w.model.body(rel.place).id
            xy = w.data.xpos[bid][:2].copy()
            mover = object_box(w.model, w.data, rel.mover)
            reach = FOOTPRINT * float(min(mover.half[0], mover.half[1]))
            return xy, box.top, self._support_top(rel.place, xy, reach, box.top)
        sid = w.model.site(rel.place).id
        pos = w.data.site_xpos[sid]
        top = float(pos[2] + w.model.site_size[sid][2])
        rest = top
        if rel.predicate == "In":  # into the site's box: onto its floor
            rest = float(pos[2] - w.model.site_size[sid][2])
        if int(w.model.site_bodyid[sid]) != 0:  # a region of a fixture or object: over it
            owner = w.model.body(int(w.model.site_bodyid[sid])).name
            top = max(top, object_box(w.model, w.data, owner).top)
            if rel.predicate == "On":
                rest = top
        return pos[:2].copy(), top, rest

    def _ray(self, start: np.ndarray, direction: np.ndarray, root: int) -> float | None:
        """Distance [m] from world ``start`` along unit ``direction`` to the first geom of
        the body tree ``root`` (other bodies are looked through), None when none is hit;
        a negative ``root`` (``-body``) counts that body's own geoms only."""
        w = self.world
        geomid = np.zeros(1, dtype=np.int32)
        p, gone = np.asarray(start, float).copy(), 0.0
        for _ in range(8):
            dist = mujoco.mj_ray(w.model, w.data, p, direction, None, 1, -1, geomid)
            g = int(geomid[0])
            if g < 0 or dist < 0:
                return None
            hit = int(w.model.geom_bodyid[g])
            if (root < 0 and hit == -root) or int(w.model.body_rootid[hit]) == root:
                return gone + float(dist)
            step = float(dist) + 1e-4
            p, gone = p + step * direction, gone + step
        return None

    def _slot(self, rel: Relation) -> Slot | None:
        """The :class:`Slot` of ``rel``'s place when it is an ``In`` region of a fixture or
        object whose own body covers it from above, over its centre and near its corners
        (:data:`COVERED`: a shelf's board over its compartment), and that is open on a
        side; None for any other place (a basket under its handle, a bowl, a drawer: open
        above, or covered by another body)."""
        if rel.predicate != "In" or rel.kind != "site":
            return None
        w = self.world
        sid = w.model.site(rel.place).id
        owner = int(w.model.site_bodyid[sid])
        if owner == 0:
            return None
        root = int(w.model.body_rootid[owner])
        center = w.data.site_xpos[sid].copy()
        mat = w.data.site_xmat[sid].reshape(3, 3)
        half = w.model.site_size[sid]
        up = self._ray(center, np.array([0.0, 0.0, 1.0]), -owner)
        if up is None:
            return None
        for sx, sy in ((-1, -1), (-1, 1), (1, -1), (1, 1)):  # a board, not a handle's arch
            corner = center + mat @ (COVERED * np.array([sx * half[0], sy * half[1], 0.0]))
            if self._ray(corner, np.array([0.0, 0.0, 1.0]), -owner) is None:
                return None
        down = self._ray(center, np.array([0.0, 0.0, -1.0]), root)
        floor = center[2] - down if down is not None else w.table_top_z
        ceiling = float(center[2] + up)
        mid = np.array([center[0], center[1], 0.5 * (floor + ceiling)])
        base = self.arm.base_xy(w.data)
        best = None
        for k in (0, 1):
            for sign in (1.0, -1.0):
                d = sign * mat[:2, k]
                norm = float(np.linalg.norm(d))
                if norm < 0.5:  # a tilted site: not a horizontal axis
                    continue
                d = d / norm
                out = np.array([d[0], d[1], 0.0])
                if self._ray(mid, out, root) is not None:
                    continue  # closed that way
                facing = float(d @ (base - center[:2]))
                if best is None or facing > best[0]:
                    best = (facing, d)
        if best is None:
            return None
        inward = -best[1]
        box = object_box(w.model, w.data, w.model.body(owner).name)
        reach = float(np.abs(box.axes[:2].T @ best[1]) @ box.half)
        opening = float((box.center[:2] - center[:2]) @ best[1]) + reach
        behind = self._ray(mid, np.array([inward[0], inward[1], 0.0]), root)
        back = float(behind) if behind is not None else opening
        return Slot(sid, float(floor), ceiling, inward, -opening, back)

    def _site_yaws(self, rel: Relation, box: Any) -> tuple[float, ...]:
        """Yaw turns [rad] of the held object (its oriented ``box``) to try above the place,
        in order: for ``In`` a site, those that line its long side up with the site's long
        side (either way round; both sides of a square site) first, then
        :data:`PLACE_YAWS`; for anything else :data:`PLACE_YAWS`."""
        if rel.predicate != "In" or rel.kind == "object":
            return PLACE_YAWS
        w = self.world
        sid = w.model.site(rel.place).id
        mat = w.data.site_xmat[sid].reshape(3, 3)
        half = w.model.site_size[sid]
        horizontal = [k for k in range(3) if abs(box.axes[2, k]) < 0.7]
        if len(horizontal) < 2:
            return PLACE_YAWS
        long = max(horizontal, key=lambda k: box.half[k])
        a = float(np.arctan2(box.axes[1, long], box.axes[0, long]))
        targets = [0, 1] if abs(half[0] - half[1]) < 0.005 else [0 if half[0] > half[1] else 1]
        yaws: list[float] = []
        for k in targets:
            t = float(np.arctan2(mat[1, k], mat[0, k]))
            d = (t - a + np.pi / 2) % np.pi - np.pi / 2  # in [-pi/2, pi/2)
            yaws += [d, d + np.pi if d < 0 else d - np.pi]
        yaws.sort(key=abs)
        return (*yaws, *PLACE_YAWS)

    def _all(self) -> Iterator[list[np.ndarray]]:
        w = self.world
        task = self.env.unwrapped.task
        of = {id(p.relation): p for p in self.placements}
        relations = [p.relation for p in self.placements]
        for step in plan_steps(task, relations, w.model, w.data):
            if isinstance(step, Operation):  # a drawer, a door or a knob (tier B)
                yield from operate(self, step)
                continue
            placement = of[id(step)]
            rel = placement.relation
            self.mover = rel.mover
            xy, top, rest = self._place_of(rel)
            if rel.predicate == "In" and rel.kind == "site":  # into a drawer: clear its front
                half = object_box(w.model, w.data, rel.mover).half
                xy = drawer_spot(w.model, w.data, rel.place, xy, float(max(half[0], half[1])))
            mover_xy = w.data.xpos[w.model.body(rel.mover).id][:2]
            side = choose_side(mover_xy, xy)
            slot = self._slot(rel)
            if slot is not None:  # reached from its open side: the arm that faces it
                side = max(SIDES, key=lambda s: float(slot.inward @ (xy - ARM_BASE_XY[s])))
            if side != self.side:
                self._rest[self.arm.offset : self.arm.offset + 6] = self._target_q
                self._use(side)
            self.place_center = np.array([xy[0], xy[1], top])
            self._rider_geoms = {g for b in sorted(placement.riders) for g in w.body_geoms(b)}
            mover_geoms = set(w.body_geoms(rel.mover)) | self._rider_geoms
            hazards = {g: c for g, c in w.hazards.items() if g not in mover_geoms}
            self._spots = []
            if self.safe and hazards and rel.kind != "object" and slot is None:
                self._spots = self._clear_spots(rel, xy, hazards)
            self._hazards = hazards
            self._handed = False
            if self.safe:
                self.arm.checker.keep_clear(hazards)
            else:
                self._ignored = set(w.hazards)
            yield from self._one(rel, top, rest)

    def _one(self, rel: Relation, support_top: float, rest: float) -> Iterator[list[np.ndarray]]:
        """One pick-and-place of ``self.mover`` (``rel``'s) onto a support whose top is at
        ``support_top`` and whose surface there is at ``rest`` (world z [m]: a bowl's floor
        is below its rim); the place is ``place_center``."""
        w, arm = self.world, self.arm
        body = self.mover
        obj_geoms = w.body_geoms(body)
        # held: the TCP height above the held object's bottom
        p_grasp, rot, box, held = yield from self._close_on(body)
        bid = w.model.body(body).id
        self._grasp_local = w.data.xmat[bid].reshape(3, 3).T @ (p_grasp - w.data.xpos[bid])
        # up to the carry height over the table, and at least LIFT_RISE up from a fixture
        lift = max(w.table_top_z + CARRY_CLEARANCE + held, float(p_grasp[2]) + LIFT_RISE)
        slot = self._slot(rel)
        if slot is not None:  # only clear of the table: the carry to the opening is planned
            lift = float(p_grasp[2]) + LIFT_RISE
        high = support_top - w.table_top_z > HIGH_SUPPORT
        clearance = HIGH_CLEARANCE if high else CARRY_CLEARANCE
        if rel.predicate == "In" and rel.kind != "object":  # lowered into a container
            clearance = IN_CLEARANCE
        above = support_top + clearance + held
        # straight up to the lift height, else lower (at the edge of reach), down to
        # LIFT_RISE; beside a hazard, each of those moving away from it first
        heights = [lift, *np.linspace(lift, float(p_grasp[2]) + LIFT_RISE, LOW_LIFTS + 1)[1:]]
        ends = [p_grasp[:2]]
        away = self._away(p_grasp)
        if np.linalg.norm(away - p_grasp[:2]) > 1e-9:
            ends.insert(0, away)
        up = None
        straight: ExpertError | None = None  # the straight lift's, as the failure
        for end in ends:
            for z in heights:
                try:
                    up = self._line(p_grasp, np.array([end[0], end[1], z]), rot, 0.0)
                    break
                except ExpertError as exc:
                    if straight is None and end is ends[-1]:
                        straight = exc
            if up is not None:
                break
        if up is None:
            assert straight is not None
            raise straight
        yield up
        yield from self._settle()
        rose = risen(box, object_box(w.model, w.data, body))  # grasps: the held check
        if rose < HELD_RISE:  # the object stayed behind: it slipped out of the fingers
            raise ExpertError(
                f"object {body!r} not held: it rose {rose * 1e3:.0f} mm with the gripper"
            )
        self.phase = "carry"
        if slot is not None:  # under an overhang: in sideways, not down from above
            yield from self._insert(slot, obj_geoms)
            return
        if rel.kind == "site" and rel.predicate == "On":  # grasps: a sloped region (lay.py)
            site = w.model.site(rel.place).id
            lay = None
            if sloped(w.data.site_xmat[site]):  # the wine rack: laid on it, not stood
                lay = lay_down(self, site, obj_geoms, sorted(self._rider_geoms))
            if lay is not None:
                yield from lay
                return
        box = object_box(w.model, w.data, body)
        tcp, _ = arm.tcp(w.data)
        yaws = self._site_yaws(rel, box)
        # the carried object keeps clear of the fixtures, the support and the hazards
        arm.checker.carry(w.model.body(body).id, w.data)
        handover = None
        if self._hazards and arm.checker.clearances:
            self._lower_to = rest + RELEASE_HEIGHT + (tcp[2] - box.bottom)
        try:
            heights = [above + extra for extra in PLACE_RAISE]
            # then lower over the support, as far as the arm reaches
            low = [support_top + c + held for c in LOW_CLEARANCES]
            heights += [h for h in low if h < above - 1e-6]
            for k, height in enumerate(heights):  # one hanging tilted needs more room
                try:
                    p_above, rot, q_above = self._place_pose(
                        box.center[:2] - tcp[:2], rot, height, yaws
                    )
                    break
                except ExpertError:
                    if k < len(heights) - 1:
                        continue
                    handover = None if self._handed else self._handover(rel, support_top, held)
                    if handover is None:
                        raise
            if handover is None:
                riding = (*obj_geoms, *sorted(self._rider_geoms))  # they move with the mover
                carry = self._move_joint(q_above, 0.0, allowed=riding)
        finally:
            arm.checker.carry(None)
            self._lower_to = None
        if handover is not None:  # the other arm places it: hand it over on the table
            yield from self._relay(rel, handover, box, tcp, rot, held, support_top, rest)
            return
        yield carry
        yield from self._settle()
        self.phase = "lower"
        p_place = p_above.copy()
        p_place[2] = rest + RELEASE_HEIGHT + (tcp[2] - box.bottom)
        yield self._line(p_above, p_place, rot, 0.0)
        yield from self._settle()
        self.phase = "release"
        yield from self._grip(1.0)
        self.phase = "retreat"
        p_up = p_place + np.array([0.0, 0.0, RETREAT_HEIGHT])
        try:
            yield self._line(p_place, p_up, rot, 1.0)
        except ExpertError as exc:  # released already: go home by a planned motion instead
            self.warnings.append(f"retreat: {exc}")
        self.phase = "home"
        yield self._move_joint(np.asarray(HOME_ARM, float), 1.0)

    def _handover(self, rel: Relation, support_top: float, held: float) -> np.ndarray | None:
        """Where the arm holding the mover puts it down for the other arm when it cannot
        reach above ``rel``'s place itself (world xy [m]): a free spot on the table in both
        arms' reach (:data:`HANDOVER_NEAR`, :data:`HANDOVER_FAR`), nearest the middle between
        the mover and the place; None when the other arm cannot reach above the place either
        (a top-down gripper :data:`LOW_CLEARANCES` over ``support_top``, the TCP
        ``held`` [m] above the mover's bottom) or no spot is free."""
        w = self.world
        other = self._arms[next(s for s in SIDES if s != self.side)]
        place = self.place_center[:2].copy()
        q0 = other.q(w.data)
        reach = False
        for c in LOW_CLEARANCES:
            z = support_top + c + held
            for yaw in np.arange(6) * np.pi / 6:
                rot = top_down_rotation(np.array([np.cos(yaw), np.sin(yaw), 0.0]), 0.0)
                try:
                    other.ik.solve(np.array([place[0], place[1], z]), rot, q0=q0, rng=self._rng)
                except ExpertError:
                    continue
                reach = True
                break
            if reach:
                break
        if not reach:
            return None
        box = object_box(w.model, w.data, rel.mover)
        radius = float(np.hypot(box.half[0], box.half[1])) + HANDOVER_MARGIN
        mover_xy = w.data.xpos[w.model.body(rel.mover).id][:2]
        middle = 0.5 * (mover_xy + place)
        spots = []
        for x in np.arange(-0.2, 0.2 + 1e-9, HANDOVER_STEP):
            for y in np.arange(-0.35, 0.35 + 1e-9, HANDOVER_STEP):
                xy = np.array([x, y])
                d = [float(np.linalg.norm(xy - np.asarray(ARM_BASE_XY[s]))) for s in SIDES]
                if min(d) >= HANDOVER_NEAR and max(d) <= HANDOVER_FAR:
                    spots.append(xy)
        spots.sort(key=lambda xy: float(np.linalg.norm(xy - middle)))
        for xy in spots:
            if self._table_free(xy, radius, rel.mover):
                return xy
        return None

    def _table_free(self, xy: np.ndarray, radius: float, mover: str) -> bool:
        """Whether rays straight down at world ``xy`` and on a circle of ``radius`` [m]
        around it meet the table top first (the robot and ``mover`` looked through)."""
        w = self.world
        waist = int(w.model.jnt_bodyid[w.model.joint(self.arm.joints[0]).id])
        robot = int(w.model.body_rootid[waist])
        skip = {robot, int(w.model.body(mover).id)}
        geomid = np.zeros(1, dtype=np.int32)
        down = np.array([0.0, 0.0, -1.0])
        offsets = [np.zeros(2)] + [
            radius * np.array([np.cos(a), np.sin(a)]) for a in np.arange(12) * np.pi / 6
        ]
        for off in offsets:
            p = np.array([xy[0] + off[0], xy[1] + off[1], w.table_top_z + 0.6])
            for _ in range(8):
                dist = mujoco.mj_ray(w.model, w.data, p, down, None, 1, -1, geomid)
                g = int(geomid[0])
                if g < 0 or dist < 0:
                    return False
                body = int(w.model.geom_bodyid[g])
                p = p + (float(dist) + 1e-4) * down
                if int(w.model.body_rootid[body]) in skip or body in skip:
                    continue
                break
            if abs(float(p[2]) - w.table_top_z) > 0.003:
                return False
        return True

    def _relay(
        self,
        rel: Relation,
        spot: np.ndarray,
        box: Any,
        tcp: np.ndarray,
        rot: np.ndarray,
        held: float,
        support_top: float,
        rest: float,
    ) -> Iterator[list[np.ndarray]]:
        """Hand the held mover to the other arm through the table: carry it to ``spot``
        (world xy [m], :meth:`_handover`), set it down, let go and go home; then the other
        arm picks it up there and places it (:meth:`_one`, lower over the support when it
        must). ``box``, ``tcp``, ``rot``: the mover's box, the TCP and its rotation as
        lifted; ``held``: the TCP height over the mover's bottom [m]."""
        w, arm = self.world, self.arm
        body = self.mover
        obj_geoms = w.body_geoms(body)
        place = self.place_center.copy()
        self.phase = "handover"
        self.place_center = np.array([spot[0], spot[1], w.table_top_z])
        arm.checker.carry(w.model.body(body).id, w.data)
        try:
            p_above, rot, q_above = self._place_pose(
                box.center[:2] - tcp[:2], rot, w.table_top_z + CARRY_CLEARANCE + held
            )
            riding = (*obj_geoms, *sorted(self._rider_geoms))
            carry = self._move_joint(q_above, 0.0, allowed=riding)
        finally:
            arm.checker.carry(None)
        yield carry
        yield from self._settle()
        p_down = p_above.copy()
        p_down[2] = w.table_top_z + RELEASE_HEIGHT + held
        yield self._line(p_above, p_down, rot, 0.0)
        yield from self._settle()
        yield from self._grip(1.0)
        try:
            yield self._line(p_down, p_down + np.array([0.0, 0.0, RETREAT_HEIGHT]), rot, 1.0)
        except ExpertError as exc:
            self.warnings.append(f"handover retreat: {exc}")
        yield self._move_joint(np.asarray(HOME_ARM, float), 1.0)
        yield from self._settle()
        # the other arm takes over; this one holds its home pose
        self._rest[arm.offset : arm.offset + 6] = self._target_q
        self._use(next(s for s in SIDES if s != self.side))
        if self.safe:
            self.arm.checker.keep_clear(self._hazards)
        self.place_center = place
        self._handed = True
        self.warnings.append(f"handed over to the {self.side} arm at {np.round(spot, 3).tolist()}")
        yield from self._one(rel, support_top, rest)

    def _insert_poses(
        self, slot: Slot
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Candidate side insertions of the held mover into ``slot``, best first: (TCP
        rotation, TCP position outside the opening, joints there, TCP position inside,
        joints there; world frame, m). The gripper keeps its grasp, turned about the vertical
        so that it is outward of the mover (then by :data:`INSERT_YAWS`), or points level
        along the insertion (turned by :data:`INSERT_YAWS`), rolled about it so that the
        mover is thinnest vertically; where the mover fits under the ceiling, it is held as
        low as touches nothing (its bottom ``RELEASE_HEIGHT`` or more
        over the slot's floor) and, one candidate per height, goes in as little as keeps its
        origin :data:`INSERT_INSIDE` within the region (the fingers stay outside where the
        mover is long enough), never nearer the back than :data:`INSERT_BACK`."""
        w, arm = self.world, self.arm
        tcp, rot = arm.tcp(w.data)
        box = object_box(w.model, w.data, self.mover)
        signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
        corners = box.center + (signs * box.half) @ box.axes.T
        local = (corners - tcp) @ rot  # the mover's box corners in the TCP frame
        origin = rot.T @ (w.data.xpos[w.model.body(self.mover).id] - tcp)
        room = slot.ceiling - slot.floor - RELEASE_HEIGHT
        i = slot.inward
        # the gripper as it holds the mover, turned about the vertical so that the TCP is
        # outward of the mover's centre (a pan's handle out of the opening) ...
        # and tilted back so that the mover is level (a pan sags on its handle)
        grip = tcp[:2] - box.center[:2]
        if np.linalg.norm(grip) > 1e-3:
            base = math.atan2(-i[1], -i[0]) - math.atan2(grip[1], grip[0])
            level = _leveling(box.axes) @ rot
            for turn in INSERT_YAWS:
                c, s = math.cos(base + turn), math.sin(base + turn)
                rt = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ level
                yield from self._insert_heights(
                    slot, rt, np.array([i[0], i[1], 0.0]), local, origin, room
                )
        # ... or level, pointing into the slot, rolled so that the mover is thinnest vertically
        up = np.array([0.0, 0.0, 1.0])
        for turn in INSERT_YAWS:
            c, s = math.cos(turn), math.sin(turn)
            d = np.array([c * i[0] - s * i[1], s * i[0] + c * i[1], 0.0])
            rolls = []
            for r in np.arange(4) * np.pi / 2:
                x = math.cos(r) * up + math.sin(r) * np.cross(up, d)
                rt = np.column_stack([x, np.cross(d, x), d])
                rolls.append((round(float(np.ptp((local @ rt.T)[:, 2])), 3), rt))
            # thinnest to the mm; of two as thin, the first: the gripper's x axis up, not
            # turned over (which, measured on STUDY_SCENE4, swings the book into the shelf)
            level = min(rolls, key=lambda t: t[0])[1]
            yield from self._insert_heights(slot, level, d, local, origin, room)

    def _insert_heights(
        self,
        slot: Slot,
        rot: np.ndarray,
        d: np.ndarray,
        local: np.ndarray,
        origin: np.ndarray,
        room: float,
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`_insert_depth` at each height from the lowest up, the TCP at rotation
        ``rot`` moving along ``d`` (unit, world); ``local``, ``origin``: the mover's box
        corners and origin in the TCP frame [m]; ``room``: the slot's free height [m]."""
        pts = local @ rot.T  # the corners from the TCP, world axes
        height = float(np.ptp(pts[:, 2]))
        if height >= room:
            return
        lowest = slot.floor + RELEASE_HEIGHT - float(pts[:, 2].min())
        for z in lowest + np.arange(0.0, room - height, INSERT_STEP):
            yield from self._insert_depth(slot, rot, d, pts, rot @ origin, float(z))

    def _insert_depth(
        self,
        slot: Slot,
        rot: np.ndarray,
        d: np.ndarray,
        pts: np.ndarray,
        origin: np.ndarray,
        z: float,
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """The shallowest side insertion into ``slot`` with the TCP at height ``z`` and
        rotation ``rot``, moving along ``d`` (:meth:`_insert_poses`; ``pts``, ``origin``:
        the mover's box corners and origin from the TCP, world axes [m]); nothing when none
        is reachable and collision-free at both ends (the search stops at the first depth
        out of the arm's reach)."""
        w, arm = self.world, self.arm
        sid = slot.site
        center = w.data.site_xpos[sid]
        smat = w.data.site_xmat[sid].reshape(3, 3)
        shalf = w.model.site_size[sid] - INSERT_INSIDE
        ahead = float(np.max(pts[:, :2] @ slot.inward))  # the mover's front, inward
        along = float(d[:2] @ slot.inward)
        start = slot.opening - INSERT_OUTSIDE - ahead  # the front that far outside
        for t in np.arange(start, slot.back - INSERT_BACK - ahead + 1e-9, INSERT_DEPTH_STEP):
            p_in = np.array([*(center[:2] + t * slot.inward), z])
            if not (np.abs(smat.T @ (p_in + origin - center))[:2] <= shalf[:2]).all():
                continue
            try:
                q_in = arm.ik.solve(p_in, rot, q0=self._target_q, rng=self._rng).q
            except ExpertError:  # deeper is farther from the arm that faces the opening
                return
            if arm.checker.in_collision(q_in):
                continue
            p_out = p_in - (t - start) / max(along, 1e-6) * d
            try:
                q_out = arm.ik.solve(p_out, rot, q0=q_in, rng=self._rng).q
            except ExpertError:
                continue
            if arm.checker.in_collision(q_out):
                continue
            yield rot, p_out, q_out, p_in, q_in
            return

    def _finger_off(self, p_in: np.ndarray, rot: np.ndarray, obj_geoms: list[int]) -> np.ndarray:
        """Where the open gripper at ``p_in`` (TCP rotation ``rot``) goes before backing out
        of a slot: the largest of :data:`INSERT_DROPS` below that is reachable and touches
        nothing but the released mover, else ``p_in`` itself."""
        w, arm = self.world, self.arm
        arm.checker.allowed = set(obj_geoms) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        for drop in INSERT_DROPS:
            p = p_in - np.array([0.0, 0.0, drop])
            try:
                q = arm.ik.solve(p, rot, q0=self._target_q, rng=self._rng).q
            except ExpertError:
                continue
            if not arm.checker.in_collision(q):
                return p
        return p_in.copy()

    def _insert(self, slot: Slot, obj_geoms: list[int]) -> Iterator[list[np.ndarray]]:
        """Carry the held mover in front of ``slot``'s opening, push it in level (a straight
        line along the gripper's axis), release it there, back out the same way and go home:
        how a book goes onto a shelf's lower board or a pan under it."""
        w, arm = self.world, self.arm
        arm.checker.carry(w.model.body(self.mover).id, w.data)
        arm.checker.allowed = set(obj_geoms) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        riding = (*obj_geoms, *sorted(self._rider_geoms))
        errors: list[str] = []
        chosen = None
        try:
            for pose in self._insert_poses(slot):
                try:
                    carry = self._move_joint(pose[2], 0.0, allowed=riding)
                except ExpertError as exc:
                    errors.append(str(exc))
                    continue
                arm.checker.allowed = set(riding) | self._ignored
                if arm.checker.segment_free(pose[2], pose[4], resolution=0.01):
                    chosen = pose
                    break
                errors.append("the straight insertion collides")
        finally:
            arm.checker.carry(None)
        if chosen is None:
            raise ExpertError(
                "no collision-free side insertion under the overhang"
                + (": " + "; ".join(errors[:2]) if errors else "")
            )
        R, p_out, _, p_in, _ = chosen
        yield carry
        yield from self._settle()
        self.phase = "insert"
        yield self._line(p_out, p_in, R, 0.0)
        yield from self._settle()
        self.phase = "release"
        yield from self._grip(INSERT_RELEASE)
        self.phase = "retreat"
        try:  # the lower finger down off the mover's overhanging end, then straight out
            p_off = self._finger_off(p_in, R, obj_geoms)
            yield self._line(p_in, p_off, R, INSERT_RELEASE)
            yield self._line(p_off, p_out + (p_off - p_in), R, INSERT_RELEASE)
        except ExpertError as exc:
            self.warnings.append(f"retreat: {exc}")
        self.phase = "home"
        yield self._move_joint(np.asarray(HOME_ARM, float), 1.0)
