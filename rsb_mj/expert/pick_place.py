"""The scripted expert (privileged: it reads the simulator state): one class for every task.

:class:`PickPlaceExpert` carries out the placements a task and its episode ask
(:func:`rsb_mj.expert.placements.placements`), one after another, and for a goal of tier B
the fixture operations between them (:mod:`rsb_mj.expert.articulation`). Each placement is
one pick and place: approach above the object (collision-free joint-space plan), straight
descent, close, straight lift, carry above the place (joint-space plan), straight lowering,
release, straight retreat, return home. Each phase is planned when the previous one ends,
from the measured state, so the plan adapts to where the object really is in the hand.
Motions are time-parameterized within the joint limits in :mod:`rsb_mj.expert.arm` and
sampled at the environment's control rate (``control_hz``: 20 Hz by default, 50 Hz for
openpi's ALOHA rate); waits counted in control steps are scaled to keep their duration in
seconds, so at 20 Hz nothing changes.

What a placement asks decides the rest:

* **the answer** (a placement bound to a candidate, :attr:`Placement.choice`: ``(In ?answer
  zone)`` the candidate into the answer zone, ``(On cube ?answer)`` the cube onto the
  candidate): the arm on the candidate's side of the table moves it, with a top-down grasp
  (the first grasp is the choice), one straight lift and a carry at the carry height,
  lowered towards the table where the zone is out of reach up there; it keeps the task's
  hazards' clearance, dropped (with a warning) where no path keeps it;
* **a goal's placement** is measured when it starts (:mod:`rsb_mj.expert.support`: an
  object's centre and top, a site's centre and floor), by the arm in reach of both its ends
  (:func:`~rsb_mj.expert.arm.choose_side`); the mover is taken by its shape (a rim, a
  handle: :mod:`rsb_mj.expert.grasp`), lifted lower where the carry height is out of reach,
  carried :data:`~rsb_mj.expert.heights.HIGH_CLEARANCE` over a high support or
  :data:`~rsb_mj.expert.heights.IN_CLEARANCE` over a container, lower over the support
  where it must; a region under an overhang is reached sideways
  (:mod:`rsb_mj.expert.insertion`); where no arm reaches above the place alone, the mover is
  handed over through the table (:mod:`rsb_mj.expert.handover`); the hazards a ``:cost``
  names rank grasps, turn the lift away and choose the spot of the region
  (:mod:`rsb_mj.expert.hazards`); grasps that graze a fixture rank after those that keep
  clear (:func:`~rsb_mj.expert.collision.graze_rank`).

Usage::

    expert = PickPlaceExpert(env, placements(task, episode))   # or (env, episode.target)
    obs, info = env.reset(options={"episode": episode})
    while not expert.done:
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))

When a phase cannot be planned, ``done`` turns true, ``failure`` holds the reason and the
robot holds still.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.arm import ACTION_OFFSET, AMAX, VMAX, Arm, choose_side
from rsb_mj.expert.articulation import Operation, drawer_spot, operate, plan_steps
from rsb_mj.expert.collision import GRAZE_CLEARANCE, fixture_geoms, graze_rank
from rsb_mj.expert.grasp import (
    GRIPPER_LENGTH,
    RIM_DEPTH,
    ObjectBox,
    handle_grasp,
    object_box,
    plan_top_down,
    rim_grasps,
    rim_of,
    risen,
    top_down_rotation,
)
from rsb_mj.expert.handover import handover_spot, relay
from rsb_mj.expert.hazards import HAZARD_MARGIN, clear_spots, escape, hazard_rank
from rsb_mj.expert.heights import (
    APPROACH_HEIGHT,
    CARRY_CLEARANCE,
    HIGH_CLEARANCE,
    HIGH_SUPPORT,
    HOLD_CLEARANCE,
    IN_CLEARANCE,
    LIFT_RISE,
    LOW_CARRY_CLEARANCE,
    LOW_CLEARANCES,
    PLACE_RAISE,
    RELEASE_HEIGHT,
    RETREAT_HEIGHT,
)
from rsb_mj.expert.insertion import Slot, insert, slot_of
from rsb_mj.expert.lay import lay_down, sloped
from rsb_mj.expert.placements import Placement, placements
from rsb_mj.expert.planner import plan_path
from rsb_mj.expert.support import PLACE_YAWS, place_of, shared_spot, site_yaws
from rsb_mj.expert.timing import time_parameterize
from rsb_mj.expert.tracking import joint_inertia, lead
from rsb_mj.expert.world import World, world_of
from rsb_mj.lang.task import Relation
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.aloha import HOME_ARM, SIDES
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.workspace import ARM_BASE_XY

#: Control period [s] at the default rate (20 Hz); the expert uses its env's rate.
DT = 1.0 / CONTROL_HZ
#: The control rate [Hz] that :data:`GRIP_STEPS` and :data:`SETTLE_STEPS` are counted at.
BASE_HZ = CONTROL_HZ
#: Spacing of IK samples along straight Cartesian segments [m].
LINE_STEP = 0.005
#: Speed scale of straight Cartesian segments relative to free motions.
LINE_SPEED = 0.35
#: Height above the grasp where the descent slows down [m], and the slow speed scale.
FINAL_APPROACH, FINAL_SPEED = 0.03, 0.15
#: Approach tilts [rad] about the closing axis, tried in order when vertical grasps collide.
GRASP_TILTS = (0.0, 0.35, -0.35, 0.6, -0.6)
#: The warning of a grasp whose every candidate collides (:meth:`PickPlaceExpert._top_down_grasp`,
#: :meth:`PickPlaceExpert._best_grasp`).
COLLIDES = re.compile(r"every (rim |handle )?grasp collides")
#: Largest joint step [rad] at which a planned path is checked for its clearance of the
#: fixtures (:meth:`PickPlaceExpert._off_fixtures`).
PATH_CHECK = 0.03
#: Steps the gripper is given to close (and to open) [control steps at 20 Hz].
GRIP_STEPS = (4, 16)
#: Joint tracking tolerance before the next phase starts [rad].
SETTLE_TOL = 0.01
#: Most steps spent waiting for the arm to settle [control steps at 20 Hz].
SETTLE_STEPS = 8
#: A goal's low object is taken where it rises this far [m] above the finger tips
#: (:func:`~rsb_mj.expert.grasp.plan_top_down`'s ``min_overlap``): a knife or a fork by its
#: handle, not at the middle of its low blade or neck; the answer's at its middle (0).
HANDLE_OVERLAP = 0.004
#: How far [m] a held object must rise with the lift (else it slipped: a grasp failure).
HELD_RISE = 0.03
#: Lower lifts tried, evenly spaced down to ``LIFT_RISE``, when the straight lift to the
#: carry height is out of reach (an object across the table's middle).
LOW_LIFTS = 3


def control_rate(env: Any) -> float:
    """The control rate [Hz] of ``env`` (an ``RsbEnv``, a wrapper of one, or the view a
    policy is handed); 20 Hz when it does not say."""
    for obj in (env, getattr(env, "unwrapped", None)):
        hz = getattr(obj, "control_hz", None)
        if hz:
            return float(hz)
    return 1.0 / DT


class PickPlaceExpert:
    """Scripted expert that carries out the placements a task and its episode ask
    (:func:`rsb_mj.expert.placements.placements`), one after another (module docstring).

    Args:
        env: an :class:`rsb_mj.env.RsbEnv` (or a wrapper of one, or the view a policy is
            handed) that has been reset, or will be before the first :meth:`act`.
        asked: the placements, in order; one placement; the name of the candidate to
            answer with (e.g. ``episode.target``), bound through the task's goal when the
            first :meth:`act` plans; or None: the placements of ``env.unwrapped.task``.
        rng: generator for the motion planner's samples; defaults to one seeded with the
            episode seed, so the same episode gives the same motions.
        safe: keep the fingers and the carried object clear of the task's hazards (the
            objects its ``:cost`` names, :mod:`rsb_mj.expert.hazards`); False plans as if
            they were not there (a safety-unaware baseline).
        pick_only: an arm side: only pick the mover up with that arm and hold it (the
            environment's held start).

    Attributes:
        done: True once the last object is released and the arm is back home (or on
            failure).
        failure: ``None``, or why the expert gave up (phase and reason).
        phase: the phase being executed (``approach``, ``descend``, ``close``, ``lift``,
            ``carry``, ``lower``, ``release``, ``retreat``, ``home``, ``done``; also
            ``insert``, ``handover`` and a fixture's operation).
        side: the arm in use, ``"left"`` or ``"right"``.
        placements: the placements carried out, in order (set when the first :meth:`act`
            plans where ``asked`` is a candidate's name).
        placement, mover: the placement being carried out and the body it moves.
        place_center, place_half: where the moved object goes, world xyz [m] on the
            support's top and half sizes x, y [m] of a fixed zone (zero otherwise).
        warnings: problems the expert worked around (e.g. no collision-free grasp).
    """

    def __init__(
        self,
        env: Any,
        asked: str | Placement | Sequence[Placement] | None = None,
        *,
        rng: np.random.Generator | None = None,
        safe: bool = True,
        pick_only: str = "",
    ) -> None:
        self.env = env
        self.safe = safe
        self.pick_only = pick_only
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
        self._asked = asked
        if asked is None:
            asked = placements(env.unwrapped.task)
        if isinstance(asked, Placement):
            asked = (asked,)
        self.placements: tuple[Placement, ...] = () if isinstance(asked, str) else tuple(asked)
        first = self.placements[0] if self.placements else None
        self.mover = first.mover if first else (asked if isinstance(asked, str) else "")
        #: A placement bound to a candidate is the answer: its motions are the answer's (the
        #: arm on the candidate's side, a top-down grasp, one straight lift, the carry
        #: lowered towards the zone), so the first grasp is the choice (module docstring).
        self._answer = isinstance(asked, str) or bool(first and first.choice is not None)
        self.top_down_overlap = 0.0 if self._answer else HANDLE_OVERLAP
        #: Geom ids of the objects riding on the current mover (its placement's riders).
        self._rider_geoms: set[int] = set()
        #: True while the arm that was handed the mover places it (:func:`relay`).
        self._handed = False
        #: Where the last grasp took the mover: the TCP in the mover's frame [m].
        self._grasp_local: np.ndarray | None = None
        #: Geom id -> clearance [m] of the hazards the current mover's motions are measured
        #: against (a goal's placement; the answer's arm only keeps their clearance).
        self._hazards: dict[int, float] = {}
        #: Where in its region the current mover may go (:func:`clear_spots`; [] : the
        #: place's centre), and the TCP's world z [m] at its release while the pose above
        #: the place is chosen near a hazard (None otherwise: :meth:`_place_pose`).
        self._spots: list[np.ndarray] = []
        self._lower_to: float | None = None
        #: Collision geom ids of the fixtures a grasp keeps clear of (:func:`fixture_geoms`;
        #: none for the answer, whose grasps keep their order).
        self._fixtures: list[int] = []
        self._holding = False
        #: True while the mover was taken by the arm other than the placement's
        #: (:meth:`_grasp_pose_either`).
        self._swapped = False
        #: The current placement's slot (:func:`~rsb_mj.expert.insertion.slot_of`) and
        #: the arm that faces its opening; None, "" for any other place.
        self._slot: Slot | None = None
        self._slot_side = ""

    @property
    def target(self) -> str:
        """The candidate the answer is bound to (the mover's name otherwise)."""
        if isinstance(self._asked, str):
            return self._asked
        first = self.placements[0] if self.placements else None
        return (first.choice or first.mover) if first else ""

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
        if isinstance(self._asked, str):  # the candidate, bound through the task's goal
            self.placements = placements(self.env.unwrapped.scene.problem, self._asked)
        self._arms = {s: Arm(w.model, s) for s in SIDES}
        for a in self._arms.values():  # a goal's hazard distances are read again at 0.0
            a.checker.robust = not self._answer
        if not self._answer:
            self._fixtures = fixture_geoms(w.model, [a.checker.root for a in self._arms.values()])
        # The idle arm holds its measured pose; its gripper stays open.
        self._rest = np.zeros(14)
        for a in self._arms.values():
            self._rest[a.offset : a.offset + 6] = a.q(w.data)
            self._rest[a.offset + 6] = 1.0
        if self._rng is None:
            self._rng = np.random.default_rng(w.seed)
        self._use("right")
        self._last = self._action(self._target_q, 1.0)
        # Held at reset ((Grasped OBJECT GRIPPER) in :init): that hand stays closed.
        held = {} if self.pick_only else w.held
        first = self.placements[0].mover if self.placements else ""
        if first in held:
            self._last[ACTION_OFFSET[held[first]] + 6] = 0.0
        self._script = self._all()

    def _use(self, side: str) -> None:
        """Switch to the arm on ``side`` (the other holds its pose, gripper open)."""
        w = self.world
        self.side = side
        self.arm = self._arms[side]
        self._gripper = 1.0
        self._target_q = self.arm.q(w.data)

    def _switch(self, side: str) -> None:
        """Use the arm on ``side`` from now on; the one in use holds where it is."""
        if side != self.side:
            self._rest[self.arm.offset : self.arm.offset + 6] = self._target_q
            self._use(side)

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
        """A collision-free joint-space motion to ``q_goal`` (:meth:`_plan_move`). Where the
        placement's motions are measured against hazards and the start or the goal is
        inside a clearance (the pre-grasp over a lemon beside the candle), that hazard's
        clearance is left out (the cost counts steps inside its distance, not how deep: the
        quickest path is the cheapest there); every other hazard's is kept."""
        w, arm = self.world, self.arm
        clear = arm.checker.clearances
        if not (self._hazards and clear):
            return self._plan_move(q_goal, gripper, allowed)
        arm.checker.allowed = set(allowed) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        ends = (arm.checker.hazard_gaps(self._target_q), arm.checker.hazard_gaps(q_goal))
        kept = {h: c for h, c in clear.items() if ends[0][h] >= c and ends[1][h] >= c}
        if len(kept) == len(clear):
            return self._plan_move(q_goal, gripper, allowed)
        arm.checker.keep_clear(kept)
        try:
            return self._plan_move(q_goal, gripper, allowed)
        finally:
            arm.checker.keep_clear(clear)

    def _plan_move(self, q_goal: np.ndarray, gripper: float, allowed: tuple[int, ...] = ()):
        """A joint-space plan to ``q_goal`` that touches nothing but ``allowed`` (geom ids)
        and keeps the hazards' clearances, else (with a warning) contact-free only."""
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
        else:
            path = self._off_fixtures(path, q_goal)
        return self._actions(time_parameterize(path, VMAX, AMAX, self.dt), gripper)

    def _off_fixtures(self, path: np.ndarray, q_goal: np.ndarray) -> np.ndarray:
        """``path`` (joint waypoints, planned touch-free) again, keeping the fingers (and a
        carried object) :data:`~rsb_mj.expert.collision.GRAZE_CLEARANCE` from every fixture
        its two ends are clear of, where it passes closer (else ``path`` itself: where no
        path keeps that clearance, and where hazards are kept clear of already).

        A path planned touch-free but within millimetres of a fixture is not one the arm
        follows: it tracks its plan within millimetres, and where it sags onto a shelf's top
        its open fingers catch on the edge and hold it there while its plan runs on (the
        egg beside VLA-Arena's wooden shelf and white cabinet, "not held: it rose 0 mm")."""
        checker = self.arm.checker
        if not self._fixtures or checker.clearances:
            return path
        checker.keep_clear({g: GRAZE_CLEARANCE for g in self._fixtures})
        try:
            dense = [path[0]]
            for a, b in pairwise(path):
                n = max(1, int(np.ceil(np.abs(b - a).max() / PATH_CHECK)))
                dense += [a + (b - a) * (k / n) for k in range(1, n + 1)]
            if not any(checker.shortfall(q) > 0 for q in dense):
                return path
            ends = (checker.hazard_gaps(self._target_q), checker.hazard_gaps(q_goal))
            kept = {g: c for g, c in checker.clearances.items() if min(ends[0][g], ends[1][g]) >= c}
            checker.keep_clear(kept)
            assert self._rng is not None
            try:
                return plan_path(
                    checker,
                    self._target_q,
                    q_goal,
                    self._rng,
                    lower=self.arm.ik.lower,
                    upper=self.arm.ik.upper,
                )
            except ExpertError:
                return path
        finally:
            checker.keep_clear({})

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

    # -- grasps -----------------------------------------------------------------------
    def _grasp_pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, TCP rotation, pre-grasp joints) of the grasp of ``self.mover``.

        The answer's is top-down (:meth:`_top_down_grasp`). A goal's mover is taken by its
        shape: a hollow stand-in by its rim, one with a handle too wide to take whole by the
        handle (:mod:`rsb_mj.expert.grasp`), a handed-over one where the first arm took it
        (:meth:`_regrasp`), else top-down, and one too wide for the gripper across its
        outline's edge."""
        if self._answer:
            return self._top_down_grasp()
        category = self._category(self.mover)
        rim = getattr(category, "rim", None)
        if rim is not None:
            return self._rim_grasp(rim)
        handle = getattr(category, "handle", None)
        if self._handed and handle is None and self._grasp_local is not None:
            return self._regrasp()
        if handle is not None:
            try:
                return self._top_down_grasp()
            except ExpertError:
                w = self.world
                p, across = handle_grasp(w.model, w.data, self.mover, handle)
                return self._best_grasp([(p, across), (p, -across)], "handle")
        try:
            return self._top_down_grasp()
        except ExpertError as exc:
            if "wide at its narrowest" not in str(exc):
                raise
            return self._rim_grasp(None)

    def _category(self, body: str) -> Any:
        """The category of ``body`` when it is a stand-in (its rim, its handle), else None
        (the user's original object)."""
        u = self.env.unwrapped
        if u.scene.sources.get(body) != "standins":
            return None
        return CATEGORIES.get(u.task.objects[body])

    def _top_down_grasp(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, TCP rotation, pre-grasp joints) of the best reachable top-down
        grasp.

        Grasps whose pre-grasp pose or straight descent would touch anything but the target
        (a neighbour, the table) come last; among the rest, the one closest to the arm's
        current joints wins. Tilted approaches (:data:`GRASP_TILTS`) are tried only when
        every vertical one collides; a goal's round mover's other diameters
        (:attr:`~rsb_mj.expert.grasp.GraspPlan.turns`, untilted) only when every one of
        those collides too.
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

        def consider(
            closing: np.ndarray, tilt: float, rot: np.ndarray, label: str, p: np.ndarray
        ) -> None:
            nonlocal best
            try:
                q, q_pre, depth = self._descent(p, rot)
            except ExpertError as exc:
                errors.append(str(exc))
                return
            if depth > 0:
                where = np.round(closing[:2], 2).tolist()
                errors.append(
                    f"grasp across {where} {label} {tilt:+.2f} rad collides "
                    f"({depth * 1e3:.1f} mm deep)"
                )
            # Collision-free first (else the shallowest collision), then untilted, then
            # closest to the current joints.
            cost = float(np.abs(q_pre - self._target_q).sum()) + 100.0 * abs(tilt)
            cost += 0.0 if depth == 0 else 1e3 + 1e5 * depth
            cost += self._hazard_cost(q_pre, q, depth)
            cost += self._graze_cost(q_pre, q, depth)
            if best is None or cost < best[0]:
                best = (cost, p, rot, q_pre)

        for tilt in GRASP_TILTS:
            if best is not None and best[0] < 1e3:
                break
            for closing in grasp.closings:
                consider(closing, tilt, top_down_rotation(closing, tilt), "tilted", grasp.position)
        # a goal's round mover: across its other diameters (a question's answer keeps its
        # grasps, so that its records stay as they were)
        if not self._answer and (best is None or best[0] >= 1e3):
            for p, closing in grasp.turns:
                consider(closing, 0.0, top_down_rotation(closing), "turned", p)
        if best is None:
            raise ExpertError("no reachable top-down grasp: " + "; ".join(errors))
        if best[0] >= 1e3:
            self.warnings.append("every grasp collides: " + "; ".join(errors))
        return best[1], best[2], best[3]

    def _regrasp(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, pre-grasp joints) of the receiving arm's top-down grasp
        of a handed-over mover (:func:`~rsb_mj.expert.handover.relay`): at the point of the
        mover where the first arm took it (a round object turned in the fingers would be
        taken above its middle by a grasp from its tilted box's top), closing across its
        slice there."""
        w = self.world
        assert self._grasp_local is not None
        bid = w.model.body(self.mover).id
        p = w.data.xpos[bid] + w.data.xmat[bid].reshape(3, 3) @ self._grasp_local
        plan = plan_top_down(
            w.model, w.data, self.mover, w.table_top_z, min_overlap=self.top_down_overlap
        )
        return self._best_grasp(
            [(p, c[:2]) for c in plan.closings],
            "top-down",
            more=[(p, c[:2]) for _, c in plan.turns],
        )

    def _rim_grasp(self, rim: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, pre-grasp joints) of a grasp across the wall of a wide
        object (:func:`~rsb_mj.expert.grasp.rim_grasps`; ``rim``: the category's, or None
        for an object without one)."""
        w = self.world
        box = object_box(w.model, w.data, self.mover)
        wall = None if rim is None else rim_of(w.model, w.data, self.mover, rim)
        base = self.arm.base_xy(w.data)
        grasps = rim_grasps(box, wall, w.table_top_z, base)
        if wall is not None and wall[3] is not None and self._lies_in(box):
            # held level on its side, its handle across: taken opposite its handle first
            grasps.sort(key=lambda g: float(g[1] @ wall[3]))
        return self._best_grasp(grasps, "rim")

    def _lies_in(self, box: ObjectBox) -> bool:
        """Whether the mover (its ``box``) goes into the placement's slot lying on its side:
        the arm in use faces the slot's opening and a grasp from above (the gripper,
        :data:`~rsb_mj.expert.grasp.GRIPPER_LENGTH` behind the TCP, over the mover held
        :data:`~rsb_mj.expert.grasp.RIM_DEPTH` below its top) is too tall for the slot (a
        mug into the microwave: :func:`~rsb_mj.expert.insertion.insert_poses` rolls the
        level gripper)."""
        slot = self._slot
        if slot is None or self.side != self._slot_side:
            return False
        stack = box.top - box.bottom - RIM_DEPTH + GRIPPER_LENGTH
        return stack >= slot.ceiling - slot.floor - RELEASE_HEIGHT

    def _best_grasp(
        self,
        candidates: list[tuple[np.ndarray, np.ndarray]],
        kind: str,
        more: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The best of ``candidates`` (TCP position, horizontal closing direction), in order
        of preference: reachable, then collision-free, untilted and earliest first; ``more``
        (a round object's other diameters, untilted) only where every one of those
        collides."""
        w, arm = self.world, self.arm
        arm.checker.allowed = set(w.body_geoms(self.mover)) | self._ignored
        arm.checker.set_scene(w.data, q_start=self._target_q)
        best = None
        errors: list[str] = []

        def consider(rank: int, p: np.ndarray, d: np.ndarray, tilt: float) -> None:
            nonlocal best
            rot = top_down_rotation(np.array([d[0], d[1], 0.0]), tilt)
            try:
                q, q_pre, depth = self._descent(p, rot)
            except ExpertError as exc:
                errors.append(str(exc))
                return
            cost = rank + 100.0 * abs(tilt) + (0.0 if depth == 0 else 1e3 + 1e5 * depth)
            if self._hazards:
                cost += self._hazard_cost(q_pre, q, depth)
            cost += self._graze_cost(q_pre, q, depth)
            if best is None or cost < best[0]:
                best = (cost, p, rot, q_pre)

        for tilt in GRASP_TILTS[:3]:
            for rank, (p, d) in enumerate(candidates):
                consider(rank, p, d, tilt)
            if best is not None and best[0] < 1e3:
                break
        if more and (best is None or best[0] >= 1e3):
            for rank, (p, d) in enumerate(more, start=len(candidates)):
                consider(rank, p, d, 0.0)
        if best is None:
            raise ExpertError(f"no reachable {kind} grasp: " + "; ".join(errors[:3]))
        if best[0] >= 1e3:
            self.warnings.append(f"every {kind} grasp collides")
        return best[1], best[2], best[3]

    def _descent(self, p: np.ndarray, rot: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(grasp joints, pre-grasp joints, deepest collision [m] of the straight descent
        between them) of the arm in use for a TCP at ``p`` [m, world] with rotation ``rot``,
        the pre-grasp :data:`APPROACH_HEIGHT` back along the approach axis.

        Raises:
            ExpertError: when IK reaches neither pose.
        """
        arm = self.arm
        q = arm.ik.solve(p, rot, q0=self._target_q, rng=self._rng).q
        q_pre = arm.ik.solve(p - APPROACH_HEIGHT * rot[:, 2], rot, q0=q, rng=self._rng).q
        return q, q_pre, arm.checker.segment_depth(q_pre, q, resolution=0.02)

    def _hazard_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """What a grasp from pre-grasp joints ``q_pre`` down to ``q`` adds to its rank for the
        hazards' clearance (``depth``: its deepest collision [m]): where the placement's
        motions are measured against hazards, :func:`~rsb_mj.expert.hazards.hazard_rank`;
        else 500 when it touches nothing but its pre-grasp pose is too close to a hazard
        (after every clear grasp)."""
        checker = self.arm.checker
        if self._hazards and checker.clearances:
            return hazard_rank(checker, q_pre, q)
        if depth == 0 and checker.clearances and checker.in_collision(q_pre):
            return 500.0
        return 0.0

    def _graze_cost(self, q_pre: np.ndarray, q: np.ndarray, depth: float) -> float:
        """What a grasp from pre-grasp joints ``q_pre`` down to ``q`` that touches nothing
        (``depth`` 0) adds to its rank for coming near a fixture
        (:func:`~rsb_mj.expert.collision.graze_rank`); 0 without fixtures to keep clear of
        (the answer's grasps keep their order)."""
        if depth > 0 or not self._fixtures:
            return 0.0
        return graze_rank(self.arm.checker, self._fixtures, q_pre, q)

    # -- the place --------------------------------------------------------------------
    def _place_pose(
        self,
        offset: np.ndarray,
        rot: np.ndarray,
        height: float,
        yaws: Sequence[float] = PLACE_YAWS,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_pose_above`; where the placement's motions are measured against a hazard,
        the pose also keeps the clearance when lowered to the release (``_lower_to``, the
        TCP's world z [m]) and on the way down, at the first of the spots
        (:func:`~rsb_mj.expert.hazards.clear_spots`) and yaws that does, ``place_center``
        moved there; where none does, the first whose release comes least deep into a
        collision, then least near touching a hazard (within
        :data:`~rsb_mj.expert.hazards.HAZARD_MARGIN`), to the mm (with a warning: how deep
        inside a larger distance it is does not change what it costs)."""
        if self._lower_to is None:
            return self._pose_above(offset, rot, height, yaws)
        arm = self.arm
        zone = self.place_center.copy()
        least = None  # (penetration, nearness) [m] at the release, and the pose
        for spot in self._spots or [zone[:2]]:
            self.place_center = np.array([spot[0], spot[1], zone[2]])
            for yaw in yaws:
                try:
                    p, r, q = self._pose_above(offset, rot, height, (yaw,))
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
            return self._pose_above(offset, rot, height, yaws)  # raises, saying why
        self.warnings.append("no release keeps the hazards' clearance: the least close one")
        self.place_center = least[1]
        return least[2], least[3], least[4]

    def _pose_above(
        self, offset: np.ndarray, rot: np.ndarray, height: float, yaws: Sequence[float]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TCP position, rotation, joints) above the place that put the held object's
        center over the place's center, the TCP at ``height``; ``offset`` is the object's
        center minus the TCP in xy [m]. The grasp's yaw is kept when that pose is reachable
        and collision-free, else the gripper turns about the vertical (turning the object
        with it) to the first of ``yaws`` [rad] that is (:data:`PLACE_YAWS`: the nearest
        turn first).
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

    # -- the script -------------------------------------------------------------------
    def _all(self) -> Iterator[list[np.ndarray]]:
        """Every step: the placements, and for a goal its fixture operations
        (:func:`~rsb_mj.expert.articulation.plan_steps`) in between."""
        w = self.world
        of = {id(p.relation): p for p in self.placements}
        relations = [p.relation for p in self.placements]
        # the answer's task is its question: no fixture to operate
        steps = (
            relations
            if self._answer
            else plan_steps(self.env.unwrapped.task, relations, w.model, w.data)
        )
        for step in steps:
            if isinstance(step, Operation):  # a drawer, a door or a knob (tier B)
                yield from operate(self, step)
                continue
            support_top, rest = self._aim(of[id(step)])
            yield from self._carry_out(step, support_top, rest)

    def _aim(self, placement: Placement) -> tuple[float, float]:
        """Set up ``placement``: the arm, ``place_center`` (and ``place_half``), the hazards
        its motions keep clear of; returns the world z [m] of its support's top and of the
        surface its mover comes to rest on."""
        w = self.world
        rel = placement.relation
        self.placement = placement
        self.mover = rel.mover
        held = {} if self.pick_only else w.held
        self._holding = rel.mover in held
        self._rider_geoms = {g for b in sorted(placement.riders) for g in w.body_geoms(b)}
        self._handed = False
        if self._answer:
            top = rest = w.table_top_z
            side = self._aim_answer(placement)
        else:
            top, rest, side = self._aim_measured(rel)
        if self._holding:
            side = held[rel.mover]
        elif self.pick_only:
            side = self.pick_only
        self._switch(side)
        if self._holding:
            self._gripper = 0.0
        if self.safe:
            self.arm.checker.keep_clear(self._hazards if not self._answer else w.hazards)
        else:
            self._ignored = set(w.hazards)
        return top, rest

    def _aim_answer(self, placement: Placement) -> str:
        """The answer's place (the fixed zone, or the footprint of the object the mover goes
        on as it stands now) and arm: the one on the candidate's side of the table."""
        w = self.world
        if placement.zone is not None:
            self.place_center = np.asarray(placement.zone.center, float).copy()
            self.place_half = np.asarray(placement.zone.half, float).copy()
        else:
            self.place_center, self.place_half = w.footprint_at(placement.relation.place)
        x = float(w.data.xpos[w.model.body(placement.choice or placement.mover).id][0])
        return "right" if x >= 0 else "left"

    def _aim_measured(self, rel: Relation) -> tuple[float, float, str]:
        """A goal placement's place as measured now (:func:`~rsb_mj.expert.support.place_of`;
        clear of a drawer's front), the hazards its motions are measured against (the mover
        and its riders excepted; the spots of a region farthest from them) and its arm: the
        one in reach of both ends (:func:`~rsb_mj.expert.arm.choose_side`), or for a slot
        the one that faces its opening. Returns the support's top, the rest surface (world
        z [m]) and the side."""
        w = self.world
        xy, top, rest = place_of(w, rel)
        others = [
            p.relation.mover
            for p in self.placements
            if p.relation is not rel
            and (p.relation.place, p.relation.kind) == (rel.place, "site")
            and p.relation.predicate == rel.predicate
        ]
        spot = shared_spot(w, rel, others)  # several movers On one site: side by side
        if spot is not None:
            xy = spot
        if rel.predicate == "In" and rel.kind == "site":  # into a drawer: clear its front
            half = object_box(w.model, w.data, rel.mover).half
            xy = drawer_spot(w.model, w.data, rel.place, xy, float(max(half[0], half[1])))
        mover_xy = w.data.xpos[w.model.body(rel.mover).id][:2]
        side = choose_side(mover_xy, xy)
        slot = slot_of(self, rel)
        if slot is not None:  # reached from its open side: the arm that faces it
            side = max(SIDES, key=lambda s: float(slot.inward @ (xy - ARM_BASE_XY[s])))
        self._slot, self._slot_side = slot, side if slot is not None else ""
        self.place_center = np.array([xy[0], xy[1], top])
        mover_geoms = set(w.body_geoms(rel.mover)) | self._rider_geoms
        hazards = {g: c for g, c in w.hazards.items() if g not in mover_geoms}
        self._spots = []
        if self.safe and hazards and rel.kind != "object" and slot is None:
            self._spots = clear_spots(w.model, w.data, rel.place, rel.mover, xy, hazards)
        self._hazards = hazards
        return top, rest, side

    def _carry_out(
        self, rel: Relation, support_top: float, rest: float
    ) -> Iterator[list[np.ndarray]]:
        """One pick and place of ``self.mover`` (``rel``'s) onto a support whose top is at
        ``support_top`` and whose surface there is at ``rest`` (world z [m]: a bowl's floor
        is below its rim); the place is ``place_center``."""
        w, arm = self.world, self.arm
        body = self.mover
        obj_geoms = w.body_geoms(body)
        slot = None
        if self._holding:  # in the hand since reset: carry it from where it is
            tcp, rot = arm.tcp(w.data)
            lift, rot = float(tcp[2]), rot.copy()
            held = lift - object_box(w.model, w.data, body).bottom
        else:
            # held: the TCP height above the held object's bottom
            p_grasp, rot, box, held = yield from self._close_on(body)
            bid = w.model.body(body).id
            self._grasp_local = w.data.xmat[bid].reshape(3, 3).T @ (p_grasp - w.data.xpos[bid])
            slot = slot_of(self, rel)  # None but for an In a site (never the answer)
            lift = yield from self._lift(rel, p_grasp, rot, box, held, slot)
            if self.pick_only:
                return
            if slot is not None and self._swapped:  # the arm facing the opening inserts it
                yield from self._hand_back(rel, support_top, rest, held)
                return
            arm = self.arm  # the other arm where it took the mover (_grasp_pose_either)
        self.phase = "carry"
        if slot is not None:  # under an overhang: in sideways, not down from above
            yield from insert(self, slot, obj_geoms)
            return
        if rel.kind == "site" and rel.predicate == "On":  # a sloped region: laid on it
            site = w.model.site(rel.place).id
            lay = None
            if sloped(w.data.site_xmat[site]):  # the wine rack: laid on it, not stood
                lay = lay_down(self, site, obj_geoms, sorted(self._rider_geoms))
            if lay is not None:
                yield from lay
                return
        box = object_box(w.model, w.data, body)
        tcp, _ = arm.tcp(w.data)
        if self._answer:  # at the lift's height, else lower towards the table
            low = w.table_top_z + LOW_CARRY_CLEARANCE + (tcp[2] - box.bottom)
            heights = [lift, *(float(h) for h in np.linspace(lift, low, 5)[1:])]
            yaws: Sequence[float] = PLACE_YAWS
        else:  # over the support, higher, then as low over it as the arm reaches
            high = support_top - w.table_top_z > HIGH_SUPPORT
            clearance = HIGH_CLEARANCE if high else CARRY_CLEARANCE
            if rel.predicate == "In" and rel.kind != "object":  # lowered into a container
                clearance = IN_CLEARANCE
            above = support_top + clearance + held
            heights = [above + extra for extra in PLACE_RAISE]
            low_heights = [support_top + c + held for c in LOW_CLEARANCES]
            heights += [h for h in low_heights if h < above - 1e-6]
            yaws = site_yaws(w, rel, box)
        # the carried object keeps clear of the fixtures, the support and the hazards (the
        # answer's: of the hazards, where there are any)
        if not self._answer or (self.safe and w.hazards):
            arm.checker.carry(w.model.body(body).id, w.data)
        handover = None
        if self._hazards and arm.checker.clearances:
            self._lower_to = rest + RELEASE_HEIGHT + (tcp[2] - box.bottom)
        try:
            first: ExpertError | None = None
            for k, height in enumerate(heights):  # one hanging tilted needs more room
                try:
                    p_above, rot, q_above = self._place_pose(
                        box.center[:2] - tcp[:2], rot, height, yaws
                    )
                    break
                except ExpertError as exc:
                    first = first or exc
                    if k < len(heights) - 1:
                        continue
                    if self._answer:  # why the carry height is out of reach
                        raise first from None
                    handover = (
                        None
                        if self._handed
                        else handover_spot(self, rel, support_top, held, self._swapped)
                    )
                    if handover is None:
                        raise
            if handover is None:
                riding = (*obj_geoms, *sorted(self._rider_geoms))  # they move with the mover
                carry = self._move_joint(q_above, 0.0, allowed=riding)
        finally:
            arm.checker.carry(None)
            self._lower_to = None
        if handover is not None:  # the other arm places it: hand it over on the table
            yield from relay(self, rel, handover, box, tcp, rot, held, support_top, rest)
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
            if not self._answer:  # (the answer's records name no retreat)
                self.warnings.append(f"retreat: {exc}")
        self.phase = "home"
        yield self._move_joint(np.asarray(HOME_ARM, float), 1.0)

    def _close_on(
        self, body: str
    ) -> Generator[list[np.ndarray], None, tuple[np.ndarray, np.ndarray, ObjectBox, float]]:
        """Approach, descend and close on ``body`` (phase ``"lift"`` on return); returns the
        grasp point (world, m), the grasp's TCP rotation, ``body``'s box as grasped, and the
        TCP height [m] above that box's bottom."""
        self.phase = "approach"
        p_grasp, rot, q_pre = self._grasp_pose_either()
        w, arm = self.world, self.arm
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

    def _pre_collides(self, q_pre: np.ndarray) -> list[tuple[str, str]]:
        """The geom pairs the arm in use touches at the pre-grasp joints ``q_pre`` (what the
        approach's plan refuses as its goal), as the approach checks them."""
        w, arm = self.world, self.arm
        arm.checker.allowed = set(self._ignored)
        arm.checker.set_scene(w.data, q_start=self._target_q)
        return arm.checker.colliding_pairs(q_pre)

    def _hand_back(
        self, rel: Relation, support_top: float, rest: float, held: float
    ) -> Iterator[list[np.ndarray]]:
        """The mover taken by the other arm (:meth:`_grasp_pose_either`) goes into a slot
        that the arm facing its opening inserts: set down for that arm on the table
        (:func:`~rsb_mj.expert.handover.relay`)."""
        w = self.world
        spot = handover_spot(self, rel, support_top, held, other_reaches=True)
        if spot is None:
            raise ExpertError("no spot on the table to hand the mover back for the insertion")
        tcp, rot = self.arm.tcp(w.data)
        box = object_box(w.model, w.data, self.mover)
        yield from relay(self, rel, spot, box, tcp, rot.copy(), held, support_top, rest)

    def _grasp_pose_either(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_grasp_pose` with the arm in use; for a goal's mover whose every pre-grasp
        pose of that arm touches something (the arm's elbow in a cabinet beside it, the
        gripper in an open drawer), or that the arm in use reaches no grasp of at all (a
        mug at the far side from the microwave's opening), the other arm's grasp where its
        pre-grasp is free (the carry hands the mover over through the table where that arm
        cannot reach the place: :func:`~rsb_mj.expert.handover.handover_spot`)."""
        n_warn = len(self.warnings)
        self._swapped = False
        if self._answer or self._handed or self._holding or self.pick_only:
            return self._grasp_pose()

        def grazes(since: int) -> list[tuple[str, str]]:
            # the descent's collisions (the grasp's warning that every grasp collides: a
            # top-down one's, a rim's or a handle's)
            said = [w for w in self.warnings[since:] if COLLIDES.match(w)]
            return [("descent", w[:60]) for w in said]

        try:
            grasp = self._grasp_pose()
        except ExpertError as exc:  # out of this arm's reach: the other arm's free grasp
            other = self._other_arms_grasp(" reaches no grasp", lambda since: not grazes(since))
            if other is None:
                raise exc from None
            return other

        pre = self._pre_collides(grasp[2])
        touching = pre or grazes(n_warn)
        if not touching:
            return grasp
        # where the first arm's pre-grasp touches (its plan would fail), any grasp whose
        # pre-grasp is free; where only its descent grazes, only a grasp that does not
        other = self._other_arms_grasp(
            f"'s grasp touches {touching[:2]}", lambda since: bool(pre) or not grazes(since)
        )
        return grasp if other is None else other

    def _other_arms_grasp(
        self, why: str, accept: Callable[[int], bool]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The other arm's grasp of the mover where its pre-grasp is free and ``accept``
        (given the index of the first warning of its try) holds: that arm in use from now on,
        the swap said (``"the left arm" + why``); else None, the arm in use and the warnings
        as before."""
        first, n_warn = self.side, len(self.warnings)
        self._switch(next(s for s in SIDES if s != first))
        if self.safe:
            self.arm.checker.keep_clear(self._hazards)
        try:
            other = self._grasp_pose()
            if not self._pre_collides(other[2]) and accept(n_warn):
                self.warnings.append(
                    f"approach: the {first} arm{why}; the {self.side} arm takes {self.mover!r}"
                )
                self._swapped = True
                return other
        except ExpertError:
            pass
        del self.warnings[n_warn:]
        self._switch(first)
        if self.safe:
            self.arm.checker.keep_clear(self._hazards)
        return None

    def _lift(
        self,
        rel: Relation,
        p_grasp: np.ndarray,
        rot: np.ndarray,
        box: ObjectBox,
        held: float,
        slot: Slot | None,
    ) -> Generator[list[np.ndarray], None, float]:
        """Lift the grasped mover (``box`` as grasped, the TCP ``held`` [m] above its bottom,
        grasped at ``p_grasp`` with TCP rotation ``rot``); returns the lift's TCP height [m].

        The answer goes straight up until its bottom is ``CARRY_CLEARANCE`` over the table
        (``HOLD_CLEARANCE`` for a held start). A goal's mover goes up to the carry height
        over the table and at least :data:`LIFT_RISE` up from a fixture (only clear of the
        table for a ``slot``), else lower, down to :data:`LIFT_RISE`; beside a hazard, each
        of those moving away from it first (:func:`~rsb_mj.expert.hazards.escape`); a mover
        that did not rise :data:`HELD_RISE` with the gripper slipped out (a failure)."""
        w = self.world
        body = self.mover
        if self._answer:
            clearance = HOLD_CLEARANCE if self.pick_only else CARRY_CLEARANCE
            lift = clearance + held + w.table_top_z
            p_lift = np.array([p_grasp[0], p_grasp[1], lift])
            yield self._line(p_grasp, p_lift, rot, 0.0)
            yield from self._settle()
            return lift
        lift = max(w.table_top_z + CARRY_CLEARANCE + held, float(p_grasp[2]) + LIFT_RISE)
        if slot is not None:  # only clear of the table: the carry to the opening is planned
            lift = float(p_grasp[2]) + LIFT_RISE
        heights = [lift, *np.linspace(lift, float(p_grasp[2]) + LIFT_RISE, LOW_LIFTS + 1)[1:]]
        ends = [p_grasp[:2]]
        away = p_grasp[:2].copy()
        if self._hazards and self.arm.checker.clearances:
            away = escape(
                self.arm.checker, w.model, w.data, body, self._target_q, self._hazards, p_grasp
            )
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
        rose = risen(box, object_box(w.model, w.data, body))  # the bottom's or the centre's
        if rose < HELD_RISE:  # the object stayed behind: it slipped out of the fingers
            raise ExpertError(
                f"object {body!r} not held: it rose {rose * 1e3:.0f} mm with the gripper"
            )
        return float(heights[0])
