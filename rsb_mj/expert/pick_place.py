"""The scripted pick-and-place expert (privileged: it reads the simulator state).

:class:`PickPlaceExpert` carries out one bound placement
(:class:`rsb_mj.expert.placements.Placement`, or a candidate ``target`` that the task's goal
binds: :func:`rsb_mj.expert.placements.placements`): ``(In ?answer zone)`` the candidate into
the answer zone, ``(On cube ?answer)`` the cube onto the candidate. The arm on the candidate's
side of the table moves it: approach above the object (collision-free joint-space
plan), straight descent, close, straight lift, carry above the zone (joint-space plan),
straight lowering, release, straight retreat, return home. Each phase is planned when the
previous one ends, from the measured state, so the plan adapts to where the object really
is in the hand. Motions are time-parameterized within the joint limits in
:mod:`rsb_mj.expert.arm` and sampled at the environment's control rate (``control_hz``:
20 Hz by default, 50 Hz for openpi's ALOHA rate); waits counted in control steps are
scaled to keep their duration in seconds, so at 20 Hz nothing changes.

Usage::

    expert = PickPlaceExpert(env, episode.target)
    obs, info = env.reset(options={"episode": episode})
    while not expert.done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))

When a phase cannot be planned, ``done`` turns true, ``failure`` holds the reason and the
robot holds still.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from typing import Any

import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.arm import AMAX, VMAX, Arm
from rsb_mj.expert.grasp import ObjectBox, object_box, plan_top_down, top_down_rotation
from rsb_mj.expert.placements import Placement, placements
from rsb_mj.expert.planner import plan_path
from rsb_mj.expert.timing import time_parameterize
from rsb_mj.expert.tracking import joint_inertia, lead
from rsb_mj.expert.world import World, world_of
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.aloha import HOME_ARM, SIDES

#: Control period [s] at the default rate (20 Hz); the expert uses its env's rate.
DT = 1.0 / CONTROL_HZ
#: The control rate [Hz] that :data:`GRIP_STEPS` and :data:`SETTLE_STEPS` are counted at.
BASE_HZ = CONTROL_HZ
#: Height of the pre-grasp TCP above the grasp TCP [m].
APPROACH_HEIGHT = 0.08
#: Height of the object's bottom above the table while carried [m].
CARRY_CLEARANCE = 0.10
#: Height of the object's bottom above the table when it is held at reset (``pick_only``):
#: low, so the arm hides less of the table from the head camera [m].
HOLD_CLEARANCE = 0.03
#: Lowest carry height of the object's bottom above the table, tried when the zone is out
#: of reach at :data:`CARRY_CLEARANCE` [m].
LOW_CARRY_CLEARANCE = 0.03
#: Height of the object's bottom above the table when it is released [m].
RELEASE_HEIGHT = 0.008
#: Height of the retreat after release [m].
RETREAT_HEIGHT = 0.08
#: Spacing of IK samples along straight Cartesian segments [m].
LINE_STEP = 0.005
#: Speed scale of straight Cartesian segments relative to free motions.
LINE_SPEED = 0.35
#: Height above the grasp where the descent slows down [m], and the slow speed scale.
FINAL_APPROACH, FINAL_SPEED = 0.03, 0.15
#: Approach tilts [rad] about the closing axis, tried in order when vertical grasps collide.
GRASP_TILTS = (0.0, 0.35, -0.35, 0.6, -0.6)
#: Yaw changes [rad] tried, in order, when the grasp's yaw cannot reach above the zone.
PLACE_YAWS = (0.0, 0.4, -0.4, 0.8, -0.8, 1.2, -1.2, 1.6, -1.6, np.pi, 2.0, -2.0)
#: Steps the gripper is given to close (and to open) [control steps at 20 Hz].
GRIP_STEPS = (4, 16)
#: Joint tracking tolerance before the next phase starts [rad].
SETTLE_TOL = 0.01
#: Most steps spent waiting for the arm to settle [control steps at 20 Hz].
SETTLE_STEPS = 8


def control_rate(env: Any) -> float:
    """The control rate [Hz] of ``env`` (an ``RsbEnv``, a wrapper of one, or the view a
    policy is handed); 20 Hz when it does not say."""
    for obj in (env, getattr(env, "unwrapped", None)):
        hz = getattr(obj, "control_hz", None)
        if hz:
            return float(hz)
    return 1.0 / DT


class PickPlaceExpert:
    """Scripted expert that carries out one placement bound to a candidate: it moves what
    the task's goal moves (the candidate, or the object it names) to where the goal says.

    Args:
        env: an :class:`rsb_mj.env.RsbEnv` (or a wrapper of one) that has been reset, or
            will be before the first :meth:`act`.
        target: the placement (:func:`rsb_mj.expert.placements.placements`), or the name of
            the candidate to answer with (e.g. ``episode.target``), bound through the task's
            goal when the first :meth:`act` plans.
        rng: generator for the motion planner's samples; defaults to one seeded with the
            episode seed, so the same episode gives the same motions.
        safe: keep the fingers and the carried object clear of the task's hazards (the
            objects its ``:cost`` names, :mod:`rsb_mj.expert.hazards`); False plans as if
            they were not there (a safety-unaware baseline).

    Attributes:
        done: True once the object is released and the arm is back home (or on failure).
        failure: ``None``, or why the expert gave up (phase and reason).
        phase: the phase being executed (``approach``, ``descend``, ``close``, ``lift``,
            ``carry``, ``lower``, ``release``, ``retreat``, ``home``, ``done``).
        side: the arm used, ``"left"`` or ``"right"``.
        mover: the body of the object moved (set when the first :meth:`act` plans).
        placement: the placement carried out (set when the first :meth:`act` plans).
        place_center, place_half: where the moved object goes, world xyz [m] on the
            support's top and half sizes x, y [m] (set when the first :meth:`act` plans).
        warnings: problems the expert worked around (e.g. no collision-free grasp).
    """

    #: A low object is taken where it rises this far [m] above the finger tips
    #: (:func:`~rsb_mj.expert.grasp.plan_top_down`'s ``min_overlap``; 0: at its middle).
    top_down_overlap = 0.0

    def __init__(
        self,
        env: Any,
        target: str | Placement,
        *,
        rng: np.random.Generator | None = None,
        safe: bool = True,
        pick_only: str = "",
    ) -> None:
        self._init_state(env, rng=rng, safe=safe)
        self.pick_only = pick_only
        self._asked = target
        self.target = target if isinstance(target, str) else (target.choice or target.mover)
        self.mover = target if isinstance(target, str) else target.mover

    def _init_state(self, env: Any, *, rng: np.random.Generator | None, safe: bool) -> None:
        """The state every expert starts with (no plan yet)."""
        self.env = env
        self.safe = safe
        self.pick_only = ""
        self._ignored: set[int] = set()
        self._rng = rng
        self.done = False
        self.failure: str | None = None
        self.phase = "start"
        self.side = ""
        self._queue: deque[np.ndarray] = deque()
        self._script: Iterator[list[np.ndarray]] | None = None
        self._last: np.ndarray | None = None
        self.warnings: list[str] = []
        self.dt = DT
        #: Where the moved object goes now: its centre over this point on the support's top
        #: (world xyz [m], shape (3,)), and the place's half sizes in x, y [m] (shape (2,)).
        self.place_center = np.zeros(3)
        self.place_half = np.zeros(2)

    # -- policy interface -------------------------------------------------------------
    def reset(self, env: Any = None, obs: Any = None, info: Any = None) -> None:
        """Forget any plan (call after ``env.reset``); the next :meth:`act` plans afresh."""
        if env is not None:
            self.env = env
        self.done = False
        self.failure = None
        self.phase = "start"
        self._queue.clear()
        self._script = None
        self._last = None
        self.warnings = []

    def act(self, obs: Any = None) -> np.ndarray:
        """The next 14-D action (joint targets [rad], grippers 0 closed .. 1 open)."""
        if self._script is None:
            self._start()
        while not self._queue and not self.done:
            assert self._script is not None
            try:
                self._queue.extend(next(self._script))
            except StopIteration:
                self.phase = "done"
                self.done = True
            except ExpertError as exc:
                self.failure = f"{self.phase}: {exc}"
                self.done = True
        if self._queue:
            self._last = self._queue.popleft()
        assert self._last is not None
        return self._last.copy()

    # -- setup ------------------------------------------------------------------------
    def _start(self) -> None:
        self.world: World = world_of(self.env)
        self.dt = 1.0 / control_rate(self.env)  # 1 / 20 == 0.05 exactly
        w = self.world
        # what the placement moves, and where: a fixed zone, or the footprint of the object
        # it goes on as it stands now
        asked = self._asked
        if isinstance(asked, str):
            asked = placements(self.env.unwrapped.scene.problem, asked)[0]
        self.placement: Placement = asked
        self.mover = asked.mover
        if asked.zone is not None:
            self.place_center = np.asarray(asked.zone.center, float).copy()
            self.place_half = np.asarray(asked.zone.half, float).copy()
        else:
            self.place_center, self.place_half = w.footprint_at(asked.relation.place)
        # The arm on the side of the candidate (the moved object, or where it goes).
        x = float(w.data.xpos[w.model.body(asked.choice or asked.mover).id][0])
        self.side = "right" if x >= 0 else "left"
        # Held at reset ((Grasped OBJECT GRIPPER) in :init): that arm, and only the placement.
        held = {} if self.pick_only else w.held
        self._holding = self.mover in held
        if self._holding:
            self.side = held[self.mover]
        elif self.pick_only:
            self.side = self.pick_only
        self.arm = Arm(w.model, self.side)
        if self.safe:
            self.arm.checker.keep_clear(w.hazards)
        else:
            self._ignored = set(w.hazards)
        others = {s: Arm(w.model, s) for s in SIDES}
        # The idle arm holds its measured pose; its gripper stays open.
        self._rest = np.zeros(14)
        for a in others.values():
            self._rest[a.offset : a.offset + 6] = a.q(w.data)
            self._rest[a.offset + 6] = 1.0
        self._gripper = 0.0 if self._holding else 1.0
        self._target_q = self.arm.q(w.data)
        if self._rng is None:
            self._rng = np.random.default_rng(w.seed)
        self._last = self._action(self._target_q, self._gripper)
        self._script = self._run()

    def _action(self, q: np.ndarray, gripper: float) -> np.ndarray:
        a = self._rest.copy()
        a[self.arm.offset : self.arm.offset + 6] = q
        a[self.arm.offset + 6] = gripper
        return a

    # -- motion primitives ------------------------------------------------------------
    def _actions(self, traj: np.ndarray, gripper: float) -> list[np.ndarray]:
        arm, w = self.arm, self.world
        inertia = joint_inertia(w.model, w.data, arm.dof_adr)
        ctrl = lead(traj, self._target_q, self.dt, arm.kp, arm.kv, inertia)
        self._target_q = traj[-1].copy()
        self._gripper = gripper
        return [self._action(q, gripper) for q in ctrl]

    def _move_joint(self, q_goal: np.ndarray, gripper: float, allowed: tuple[int, ...] = ()):
        w, arm = self.world, self.arm
        arm.checker.allowed = set(allowed) | self._ignored
        start = self._target_q
        arm.checker.set_scene(w.data, q_start=start)
        assert self._rng is not None
        try:
            path = plan_path(
                arm.checker, start, q_goal, self._rng, lower=arm.ik.lower, upper=arm.ik.upper
            )
        except ExpertError as exc:
            clear = arm.checker.clearances
            if not clear:
                raise
            # No path keeps the hazard clearance: plan for contact-free only (the cost
            # counts touching), and say so.
            self.warnings.append(f"{self.phase}: hazard clearance dropped ({exc})")
            arm.checker.keep_clear({})
            try:
                path = plan_path(
                    arm.checker, start, q_goal, self._rng, lower=arm.ik.lower, upper=arm.ik.upper
                )
            finally:
                arm.checker.keep_clear(clear)
        return self._actions(time_parameterize(path, VMAX, AMAX, self.dt), gripper)

    def _line(
        self,
        p0: np.ndarray,
        p1: np.ndarray,
        rot: np.ndarray,
        gripper: float,
        *,
        speed: float = LINE_SPEED,
    ) -> list[np.ndarray]:
        arm = self.arm
        n = max(1, int(np.ceil(np.linalg.norm(p1 - p0) / LINE_STEP)))
        q = self._target_q
        path = [q]
        for k in range(1, n + 1):
            p = p0 + (p1 - p0) * (k / n)
            q = arm.ik.solve(p, rot, q0=q, rng=self._rng, restarts=0).q
            if np.abs(q - path[-1]).max() > 0.3:
                raise ExpertError(f"straight segment to {np.round(p, 3).tolist()} needs a jump")
            path.append(q)
        traj = time_parameterize(
            np.stack(path), VMAX * speed, AMAX * speed, self.dt, stop_at_waypoints=False
        )
        return self._actions(traj, gripper)

    def _settle(self) -> Iterator[list[np.ndarray]]:
        for _ in range(self._steps(SETTLE_STEPS)):
            if np.abs(self.arm.q(self.world.data) - self._target_q).max() < SETTLE_TOL:
                return
            yield [self._action(self._target_q, self._gripper)]

    def _steps(self, base: int) -> int:
        """``base`` control steps at 20 Hz as steps at this env's rate (same duration)."""
        return max(1, round(base * DT / self.dt))

    def _grip(self, gripper: float) -> Iterator[list[np.ndarray]]:
        self._gripper = gripper
        lo, hi = (self._steps(n) for n in GRIP_STEPS)
        still = 0.003 * DT / self.dt  # opening change per step [m] that counts as still
        prev = None
        for k in range(hi):
            now = float(self.world.gripper_opening(self.side))
            if k >= lo and prev is not None and abs(now - prev) < still:
                return
            prev = now
            yield [self._action(self._target_q, gripper)]

    # -- the script -------------------------------------------------------------------
    def _grasp_pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, TCP rotation, pre-grasp joints) of the best reachable top-down
        grasp.

        Grasps whose pre-grasp pose or straight descent would touch anything but the target
        (a neighbour, the table) come last; among the rest, the one closest to the arm's
        current joints wins. Tilted approaches (:data:`GRASP_TILTS`) are tried only when
        every vertical one collides.
        """
        w, arm = self.world, self.arm
        body = self.mover
        grasp = plan_top_down(
            w.model, w.data, body, w.table_top_z, min_overlap=self.top_down_overlap
        )
        arm.checker.allowed = set(w.body_geoms(body)) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        best = None
        errors: list[str] = []
        for tilt in GRASP_TILTS:
            if best is not None and best[0] < 1e3:
                break
            for closing in grasp.closings:
                rot = top_down_rotation(closing, tilt)
                try:
                    q = arm.ik.solve(grasp.position, rot, q0=self._target_q, rng=self._rng).q
                    q_pre = arm.ik.solve(
                        grasp.position - APPROACH_HEIGHT * rot[:, 2], rot, q0=q, rng=self._rng
                    ).q
                except ExpertError as exc:
                    errors.append(str(exc))
                    continue
                depth = arm.checker.segment_depth(q_pre, q, resolution=0.02)
                if depth > 0:
                    where = np.round(closing[:2], 2).tolist()
                    errors.append(
                        f"grasp across {where} tilted {tilt:+.2f} rad collides "
                        f"({depth * 1e3:.1f} mm deep)"
                    )
                # Collision-free first (else the shallowest collision), then untilted, then
                # closest to the current joints.
                cost = float(np.abs(q_pre - self._target_q).sum()) + 100.0 * abs(tilt)
                cost += 0.0 if depth == 0 else 1e3 + 1e5 * depth
                cost += self._hazard_cost(q_pre, q, depth)
                cost += self._graze_cost(q_pre, q, depth)
                if best is None or cost < best[0]:
                    best = (cost, rot, q_pre)
        if best is None:
            raise ExpertError("no reachable top-down grasp: " + "; ".join(errors))
        if best[0] >= 1e3:
            self.warnings.append("every grasp collides: " + "; ".join(errors))
        return grasp.position, best[1], best[2]

    def _hazard_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """What a grasp from pre-grasp joints ``q_pre`` down to ``q`` adds to its rank for the
        hazards' clearance (``depth``: its deepest collision [m]): 500 when it touches
        nothing but its pre-grasp pose is too close to a hazard (after every clear grasp)."""
        checker = self.arm.checker
        if depth == 0 and checker.clearances and checker.in_collision(q_pre):
            return 500.0
        return 0.0

    def _graze_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """What a grasp from pre-grasp joints ``q_pre`` down to ``q`` adds to its rank for
        coming near a fixed obstacle without touching it (``depth``: its deepest collision
        [m]): 0 here (the question tasks' grasps keep their order); the goal expert ranks
        a grasp that grazes a fixture after one that keeps clear of it."""
        return 0.0

    def _place_pose(
        self,
        offset: np.ndarray,
        rot: np.ndarray,
        height: float,
        yaws: Sequence[float] = PLACE_YAWS,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, joints) above the zone that put the held object's center
        over the zone's center, the TCP at ``height``; ``offset`` is the object's center
        minus the TCP in xy [m]. The grasp's yaw is kept when that pose is reachable and
        collision-free, else the gripper turns about the vertical (turning the object with
        it) to the nearest yaw in :data:`PLACE_YAWS` that is (or the first of ``yaws`` [rad]
        that is, when given).
        """
        w, arm = self.world, self.arm
        arm.checker.allowed = set(w.body_geoms(self.mover)) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        errors = []
        for yaw in yaws:
            c, s = np.cos(yaw), np.sin(yaw)
            turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            off = turn[:2, :2] @ offset
            p = np.array([self.place_center[0] - off[0], self.place_center[1] - off[1], height])
            try:
                q = arm.ik.solve(p, turn @ rot, q0=self._target_q, rng=self._rng).q
            except ExpertError as exc:
                errors.append(str(exc))
                continue
            if arm.checker.in_collision(q):
                errors.append(f"yaw {yaw:+.1f}: in collision {arm.checker.colliding_pairs(q)}")
                continue
            return p, turn @ rot, q
        raise ExpertError("no reachable pose above the zone: " + "; ".join(errors[:3]))

    def _carry_pose(
        self, offset: np.ndarray, rot: np.ndarray, lift: float, box: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_place_pose` at the carry height ``lift`` [m], else (a zone beyond the
        arm's reach up there, e.g. across the table for an object held since reset) lower,
        down to :data:`LOW_CARRY_CLEARANCE` above the table."""
        try:
            return self._place_pose(offset, rot, lift)
        except ExpertError:
            tcp, _ = self.arm.tcp(self.world.data)
            low = self.world.table_top_z + LOW_CARRY_CLEARANCE + (tcp[2] - box.bottom)
            for height in np.linspace(lift, low, 5)[1:]:
                with contextlib.suppress(ExpertError):
                    return self._place_pose(offset, rot, float(height))
            raise

    def _run(self) -> Iterator[list[np.ndarray]]:
        w, arm = self.world, self.arm
        body = self.mover
        obj_geoms = w.body_geoms(body)
        if self._holding:  # in the hand since reset: carry it from where it is
            tcp, rot = arm.tcp(w.data)
            lift, rot = float(tcp[2]), rot.copy()
        else:
            lift, rot = yield from self._pick(body)
            if self.pick_only:
                return
        self.phase = "carry"
        box = object_box(w.model, w.data, body)
        tcp, _ = arm.tcp(w.data)
        if self.safe and w.hazards:  # the carried object keeps clear of the hazards too
            arm.checker.carry(w.model.body(body).id, w.data)
        try:
            p_above, rot, q_above = self._carry_pose(box.center[:2] - tcp[:2], rot, lift, box)
            carry = self._move_joint(q_above, 0.0, allowed=obj_geoms)
        finally:
            arm.checker.carry(None)
        yield carry
        yield from self._settle()
        self.phase = "lower"
        p_place = p_above.copy()
        p_place[2] = w.table_top_z + RELEASE_HEIGHT + (tcp[2] - box.bottom)
        yield self._line(p_above, p_place, rot, 0.0)
        yield from self._settle()
        self.phase = "release"
        yield from self._grip(1.0)
        self.phase = "retreat"
        p_up = p_place + np.array([0.0, 0.0, RETREAT_HEIGHT])
        with contextlib.suppress(ExpertError):  # at the edge of reach: straight home instead
            retreat = self._line(p_place, p_up, rot, 1.0)
            yield retreat
        self.phase = "home"
        yield self._move_joint(np.asarray(HOME_ARM, float), 1.0)

    def _close_on(
        self, body: str
    ) -> Generator[list[np.ndarray], None, tuple[np.ndarray, np.ndarray, ObjectBox, float]]:
        """Approach, descend and close on ``body`` (phase ``"lift"`` on return); returns the
        grasp point (world, m), the grasp's TCP rotation, ``body``'s box as grasped, and the
        TCP height [m] above that box's bottom."""
        w, arm = self.world, self.arm
        self.phase = "approach"
        p_grasp, rot, q_pre = self._grasp_pose()
        p_pre = p_grasp - APPROACH_HEIGHT * rot[:, 2]
        yield self._move_joint(q_pre, 1.0)
        yield from self._settle()
        self.phase = "descend"
        p_near = p_grasp - FINAL_APPROACH * rot[:, 2]
        yield self._line(p_pre, p_near, rot, 1.0)
        yield from self._settle()
        yield self._line(p_near, p_grasp, rot, 1.0, speed=FINAL_SPEED)
        yield from self._settle()
        self.phase = "close"
        yield from self._grip(0.0)
        self.phase = "lift"
        box = object_box(w.model, w.data, body)
        tcp, _ = arm.tcp(w.data)
        return p_grasp, rot, box, tcp[2] - box.bottom

    def _pick(self, body: str) -> Generator[list[np.ndarray], None, tuple[float, np.ndarray]]:
        """Approach, descend, close and lift ``body``; returns the lifted TCP height [m] and
        the grasp's TCP rotation."""
        w = self.world
        p_grasp, rot, _, held = yield from self._close_on(body)
        clearance = HOLD_CLEARANCE if self.pick_only else CARRY_CLEARANCE
        lift = clearance + held + w.table_top_z
        p_lift = np.array([p_grasp[0], p_grasp[1], lift])
        yield self._line(p_grasp, p_lift, rot, 0.0)
        yield from self._settle()
        return lift, rot
