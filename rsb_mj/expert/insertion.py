"""Insertion under an overhang: a mover put ``In`` a region that its owner covers from above.

A shelf's compartment is reached from its open side, not from above (:class:`Slot`,
:func:`slot_of`: the region's owner covers it over its centre and near its corners, and it
is open on one side). :func:`insert` carries the held mover in front of the opening, pushes
it in level along a straight line (:func:`insert_poses`: the grasp kept and levelled, else
the gripper level and pointing in, rolled so that the mover is thinnest vertically; the
lowest height that touches nothing, as shallow as puts the mover's origin
:data:`INSERT_INSIDE` inside the region), opens the gripper, drops it off the mover's end
(:func:`finger_off`) and backs out. The functions take the expert
(:class:`~rsb_mj.expert.pick_place.PickPlaceExpert`) whose motion primitives they use, as
:mod:`rsb_mj.expert.articulation` does; world frame, metres and radians throughout.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import subtree_bodies
from rsb_mj.expert.grasp import object_box
from rsb_mj.expert.heights import RELEASE_HEIGHT
from rsb_mj.lang.task import Relation
from rsb_mj.scene.aloha import HOME_ARM

#: Share of a region's half sizes at whose corners (and its centre) its owner must cover
#: it from above for the region to be under an overhang (:func:`slot_of`).
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
#: How far [m] inside the opening's plane (the fixture's front) the whole mover goes
#: where a door closes over the opening (the microwave's door panel, closed, lies inside
#: that plane).
DOOR_INSIDE = 0.04
#: Rolls (evenly spaced over a turn) of the level gripper tried after every other side
#: insertion, and how many of the thinnest of them that fit are tried per direction.
FINE_ROLLS, FINE_TRIES = 24, 4
#: Those rolls keep the gripper's y axis at most this far up (its z component): the camera
#: mount, 12 cm along -y behind the TCP, not down into the table.
MOUNT_UP = 0.5


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
        door: whether the owner has a hinged or sliding part (a microwave's door) that
            closes over the opening: the mover goes in wholly, :data:`DOOR_INSIDE` deep.
    """

    site: int
    floor: float
    ceiling: float
    inward: np.ndarray
    opening: float
    back: float
    door: bool = False


def leveling(axes: np.ndarray) -> np.ndarray:
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


def _ray(expert: Any, start: np.ndarray, direction: np.ndarray, root: int) -> float | None:
    """Distance [m] from world ``start`` along unit ``direction`` to the first geom of
    the body tree ``root`` (other bodies are looked through), None when none is hit;
    a negative ``root`` (``-body``) counts that body's own geoms only."""
    w = expert.world
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


def slot_of(expert: Any, rel: Relation) -> Slot | None:
    """The :class:`Slot` of ``rel``'s place when it is an ``In`` region of a fixture or
    object whose own body covers it from above, over its centre and near its corners
    (:data:`COVERED`: a shelf's board over its compartment), and that is open on a
    side; None for any other place (a basket under its handle, a bowl, a drawer: open
    above, or covered by another body)."""
    if rel.predicate != "In" or rel.kind != "site":
        return None
    w = expert.world
    sid = w.model.site(rel.place).id
    owner = int(w.model.site_bodyid[sid])
    if owner == 0:
        return None
    root = int(w.model.body_rootid[owner])
    center = w.data.site_xpos[sid].copy()
    mat = w.data.site_xmat[sid].reshape(3, 3)
    half = w.model.site_size[sid]
    up = _ray(expert, center, np.array([0.0, 0.0, 1.0]), -owner)
    if up is None:
        return None
    for sx, sy in ((-1, -1), (-1, 1), (1, -1), (1, 1)):  # a board, not a handle's arch
        corner = center + mat @ (COVERED * np.array([sx * half[0], sy * half[1], 0.0]))
        if _ray(expert, corner, np.array([0.0, 0.0, 1.0]), -owner) is None:
            return None
    down = _ray(expert, center, np.array([0.0, 0.0, -1.0]), root)
    floor = center[2] - down if down is not None else w.table_top_z
    ceiling = float(center[2] + up)
    mid = np.array([center[0], center[1], 0.5 * (floor + ceiling)])
    base = expert.arm.base_xy(w.data)
    best = None
    for k in (0, 1):
        for sign in (1.0, -1.0):
            d = sign * mat[:2, k]
            norm = float(np.linalg.norm(d))
            if norm < 0.5:  # a tilted site: not a horizontal axis
                continue
            d = d / norm
            out = np.array([d[0], d[1], 0.0])
            if _ray(expert, mid, out, root) is not None:
                continue  # closed that way
            facing = float(d @ (base - center[:2]))
            if best is None or facing > best[0]:
                best = (facing, d)
    if best is None:
        return None
    inward = -best[1]
    box = object_box(w.model, w.data, w.model.body(owner).name, fixed=True)  # not its door
    reach = float(np.abs(box.axes[:2].T @ best[1]) @ box.half)
    opening = float((box.center[:2] - center[:2]) @ best[1]) + reach
    behind = _ray(expert, mid, np.array([inward[0], inward[1], 0.0]), root)
    back = float(behind) if behind is not None else opening
    door = any(w.model.body_jntnum[b] for b in subtree_bodies(w.model, owner))
    return Slot(sid, float(floor), ceiling, inward, -opening, back, bool(door))


def insert_poses(
    expert: Any, slot: Slot
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
    w, arm = expert.world, expert.arm
    tcp, rot = arm.tcp(w.data)
    box = object_box(w.model, w.data, expert.mover)
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
    corners = box.center + (signs * box.half) @ box.axes.T
    local = (corners - tcp) @ rot  # the mover's box corners in the TCP frame
    origin = rot.T @ (w.data.xpos[w.model.body(expert.mover).id] - tcp)
    room = slot.ceiling - slot.floor - RELEASE_HEIGHT
    i = slot.inward
    # the gripper as it holds the mover, turned about the vertical so that the TCP is
    # outward of the mover's centre (a pan's handle out of the opening) ...
    # and tilted back so that the mover is level (a pan sags on its handle)
    grip = tcp[:2] - box.center[:2]
    if np.linalg.norm(grip) > 1e-3:
        base = math.atan2(-i[1], -i[0]) - math.atan2(grip[1], grip[0])
        level = leveling(box.axes) @ rot
        for turn in INSERT_YAWS:
            c, s = math.cos(base + turn), math.sin(base + turn)
            rt = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ level
            yield from _insert_heights(
                expert, slot, rt, np.array([i[0], i[1], 0.0]), local, origin, room
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
        yield from _insert_heights(expert, slot, level, d, local, origin, room)
    # where none of those serves (a mug held by its rim, too tall upright and at every
    # quarter roll, or its camera mount down into the table): the finer rolls of each
    # direction that fit, the mount not down, thinnest first
    for turn in INSERT_YAWS:
        c, s = math.cos(turn), math.sin(turn)
        d = np.array([c * i[0] - s * i[1], s * i[0] + c * i[1], 0.0])
        fine = []
        for k in range(1, FINE_ROLLS):  # the first is the quarter roll 0, tried above
            r = 2 * np.pi * k / FINE_ROLLS
            x = math.cos(r) * up + math.sin(r) * np.cross(up, d)
            rt = np.column_stack([x, np.cross(d, x), d])
            height = round(float(np.ptp((local @ rt.T)[:, 2])), 3)
            if height < room and rt[2, 1] <= MOUNT_UP:
                fine.append((height, k, rt))
        for _, _, rt in sorted(fine, key=lambda t: t[:2])[:FINE_TRIES]:
            yield from _insert_heights(expert, slot, rt, d, local, origin, room)


def _insert_heights(
    expert: Any,
    slot: Slot,
    rot: np.ndarray,
    d: np.ndarray,
    local: np.ndarray,
    origin: np.ndarray,
    room: float,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`_insert_depth` at each height from the lowest up, the TCP at rotation
    ``rot`` moving along ``d`` (unit, world); ``local``, ``origin``: the mover's box
    corners and origin in the TCP frame [m]; ``room``: the slot's free height [m]."""
    pts = local @ rot.T  # the corners from the TCP, world axes
    height = float(np.ptp(pts[:, 2]))
    if height >= room:
        return
    lowest = slot.floor + RELEASE_HEIGHT - float(pts[:, 2].min())
    for z in lowest + np.arange(0.0, room - height, INSERT_STEP):
        yield from _insert_depth(expert, slot, rot, d, pts, rot @ origin, float(z))


def _insert_depth(
    expert: Any,
    slot: Slot,
    rot: np.ndarray,
    d: np.ndarray,
    pts: np.ndarray,
    origin: np.ndarray,
    z: float,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The shallowest side insertion into ``slot`` with the TCP at height ``z`` and
    rotation ``rot``, moving along ``d`` (:func:`insert_poses`; ``pts``, ``origin``:
    the mover's box corners and origin from the TCP, world axes [m]); nothing when none
    is reachable and collision-free at both ends (the search stops at the first depth
    out of the arm's reach)."""
    w, arm = expert.world, expert.arm
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
        if slot.door and t + float(np.min(pts[:, :2] @ slot.inward)) < slot.opening + DOOR_INSIDE:
            continue  # wholly inside, clear of the door that closes over the opening
        try:
            q_in = arm.ik.solve(p_in, rot, q0=expert._target_q, rng=expert._rng).q
        except ExpertError:  # deeper is farther from the arm that faces the opening
            return
        if arm.checker.in_collision(q_in):
            continue
        p_out = p_in - (t - start) / max(along, 1e-6) * d
        try:
            q_out = arm.ik.solve(p_out, rot, q0=q_in, rng=expert._rng).q
        except ExpertError:
            continue
        if arm.checker.in_collision(q_out):
            continue
        yield rot, p_out, q_out, p_in, q_in
        return


def finger_off(expert: Any, p_in: np.ndarray, rot: np.ndarray, obj_geoms: list[int]) -> np.ndarray:
    """Where the open gripper at ``p_in`` (TCP rotation ``rot``) goes before backing out
    of a slot: the largest of :data:`INSERT_DROPS` below that is reachable and touches
    nothing but the released mover, else ``p_in`` itexpert."""
    w, arm = expert.world, expert.arm
    arm.checker.allowed = set(obj_geoms) | expert._ignored
    arm.checker.set_scene(w.data, q_start=expert._target_q)
    for drop in INSERT_DROPS:
        p = p_in - np.array([0.0, 0.0, drop])
        try:
            q = arm.ik.solve(p, rot, q0=expert._target_q, rng=expert._rng).q
        except ExpertError:
            continue
        if not arm.checker.in_collision(q):
            return p
    return p_in.copy()


def insert(expert: Any, slot: Slot, obj_geoms: list[int]) -> Iterator[list[np.ndarray]]:
    """Carry the held mover in front of ``slot``'s opening, push it in level (a straight
    line along the gripper's axis), release it there, back out the same way and go home:
    how a book goes onto a shelf's lower board or a pan under it."""
    w, arm = expert.world, expert.arm
    arm.checker.carry(w.model.body(expert.mover).id, w.data)
    arm.checker.allowed = set(obj_geoms) | expert._ignored
    arm.checker.set_scene(w.data, q_start=expert._target_q)
    riding = (*obj_geoms, *sorted(expert._rider_geoms))
    errors: list[str] = []
    chosen = None
    try:
        start = expert._target_q.copy()
        for pose in insert_poses(expert, slot):
            try:
                carry = expert._move_joint(pose[2], 0.0, allowed=riding)
            except ExpertError as exc:
                errors.append(str(exc))
                continue
            arm.checker.allowed = set(riding) | expert._ignored
            if arm.checker.segment_free(pose[2], pose[4], resolution=0.01):
                chosen = pose
                break
            errors.append("the straight insertion collides")
            expert._target_q = start.copy()  # where the refused carry's plan left it
    finally:
        arm.checker.carry(None)
    if chosen is None:
        raise ExpertError(
            "no collision-free side insertion under the overhang"
            + (": " + "; ".join(errors[:2]) if errors else "")
        )
    R, p_out, _, p_in, _ = chosen
    yield carry
    yield from expert._settle()
    expert.phase = "insert"
    yield expert._line(p_out, p_in, R, 0.0)
    yield from expert._settle()
    expert.phase = "release"
    yield from expert._grip(INSERT_RELEASE)
    expert.phase = "retreat"
    try:  # the lower finger down off the mover's overhanging end, then straight out
        p_off = finger_off(expert, p_in, R, obj_geoms)
        yield expert._line(p_in, p_off, R, INSERT_RELEASE)
        yield expert._line(p_off, p_out + (p_off - p_in), R, INSERT_RELEASE)
    except ExpertError as exc:
        expert.warnings.append(f"retreat: {exc}")
    if slot.door:  # its door is closed next: from here, not from home
        return
    expert.phase = "home"
    yield expert._move_joint(np.asarray(HOME_ARM, float), 1.0)
