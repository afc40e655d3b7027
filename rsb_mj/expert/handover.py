"""The handover: one arm sets the mover down on the table for the other to place.

Where the pose above a placement's place is out of the holding arm's reach (at the carry
height, higher, and :data:`~rsb_mj.expert.heights.LOW_CLEARANCES` over the support) and the
other arm reaches above it, :func:`handover_spot` finds a free spot of the table in both
arms' reach (:data:`HANDOVER_NEAR`, :data:`HANDOVER_FAR`), nearest the middle between the
mover and the place (where none is free, a tight spot: :data:`TIGHT_MARGIN` around the
mover's largest half extent, out to both arms' reach less :data:`HANDOVER_MARGIN`, on a
:data:`TIGHT_STEP` grid: between libero_10 ``KITCHEN_SCENE4``'s moved cabinet, its open
drawer and the wine rack); :func:`relay` carries the mover there, sets it down, lets go and goes
home, and the other arm picks it up where the first one took it and places it. The
functions take the expert (:class:`~rsb_mj.expert.pick_place.PickPlaceExpert`) whose motion
primitives they use, as :mod:`rsb_mj.expert.articulation` does; world frame, metres.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.grasp import object_box, top_down_rotation
from rsb_mj.expert.heights import CARRY_CLEARANCE, LOW_CLEARANCES, RELEASE_HEIGHT, RETREAT_HEIGHT
from rsb_mj.lang.task import Relation
from rsb_mj.scene.aloha import HOME_ARM, SIDES
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX

#: Where the handover spot may lie: each waist this far from it or farther, and this far
#: or nearer [m] (inside both arms' reach annulus, with a margin).
HANDOVER_NEAR, HANDOVER_FAR = 0.25, 0.50
#: Grid step [m] of the handover spots tried on the table, and the free margin [m] around
#: the mover's footprint there (rays straight down must meet the table top).
HANDOVER_STEP, HANDOVER_MARGIN = 0.03, 0.04
#: Free margin [m] around the mover's largest half extent at a tight handover spot (tried
#: where no spot has :data:`HANDOVER_MARGIN` around its corners): the fingers' room.
TIGHT_MARGIN = 0.02
#: Grid step [m] of the tight spots.
TIGHT_STEP = 0.01


def handover_spot(
    expert: Any, rel: Relation, support_top: float, held: float, other_reaches: bool = False
) -> np.ndarray | None:
    """Where the arm holding the mover puts it down for the other arm when it cannot
    reach above ``rel``'s place itself (world xy [m]): a free spot on the table in both
    arms' reach (:data:`HANDOVER_NEAR`, :data:`HANDOVER_FAR`), nearest the middle between
    the mover and the place, else the nearest tight one (module docstring); None when
    the other arm cannot reach above the place either (a top-down gripper
    :data:`LOW_CLEARANCES` over ``support_top``, the TCP ``held`` [m] above the mover's
    bottom; not checked where ``other_reaches``: the other arm is the placement's own, the
    one holding it only took it where that one could not) or no spot is free."""
    w = expert.world
    other = expert._arms[next(s for s in SIDES if s != expert.side)]
    place = expert.place_center[:2].copy()
    q0 = other.q(w.data)
    reach = other_reaches
    for c in () if reach else LOW_CLEARANCES:
        z = support_top + c + held
        for yaw in np.arange(6) * np.pi / 6:
            rot = top_down_rotation(np.array([np.cos(yaw), np.sin(yaw), 0.0]), 0.0)
            try:
                other.ik.solve(np.array([place[0], place[1], z]), rot, q0=q0, rng=expert._rng)
            except ExpertError:
                continue
            reach = True
            break
        if reach:
            break
    if not reach:
        return None
    box = object_box(w.model, w.data, rel.mover)
    mover_xy = w.data.xpos[w.model.body(rel.mover).id][:2]
    middle = 0.5 * (mover_xy + place)
    wide = float(np.hypot(box.half[0], box.half[1])) + HANDOVER_MARGIN
    near_far = REACH_MAX - HANDOVER_MARGIN if other_reaches else HANDOVER_FAR
    # the roomy spots first; where none is free (a cabinet and a rack beside the middle),
    # the tight ones: out to both arms' reach less the margin, the mover's own footprint
    # with the fingers' room (TIGHT_MARGIN) around it
    tight = float(max(box.half[0], box.half[1])) + TIGHT_MARGIN
    passes = (
        (wide, near_far, HANDOVER_STEP),
        (tight, REACH_MAX - HANDOVER_MARGIN, TIGHT_STEP),
    )
    for radius, far, step in passes:
        spots = []
        for x in np.arange(-0.2, 0.2 + 1e-9, step):
            for y in np.arange(-0.35, 0.35 + 1e-9, step):
                xy = np.array([x, y])
                d = [float(np.linalg.norm(xy - np.asarray(ARM_BASE_XY[s]))) for s in SIDES]
                if min(d) >= HANDOVER_NEAR and max(d) <= far:
                    spots.append(xy)
        spots.sort(key=lambda xy: float(np.linalg.norm(xy - middle)))
        for xy in spots:
            if table_free(expert, xy, radius, rel.mover):
                return xy
    return None


def table_free(expert: Any, xy: np.ndarray, radius: float, mover: str) -> bool:
    """Whether rays straight down at world ``xy`` and on a circle of ``radius`` [m]
    around it meet the table top first (the robot and ``mover`` looked through)."""
    w = expert.world
    waist = int(w.model.jnt_bodyid[w.model.joint(expert.arm.joints[0]).id])
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


def relay(
    expert: Any,
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
    (world xy [m], :func:`handover_spot`), set it down, let go and go home; then the other
    arm picks it up there and places it (the expert's ``_carry_out``, lower over the
    support when it must). ``box``, ``tcp``, ``rot``: the mover's box, the TCP and its rotation as
    lifted; ``held``: the TCP height over the mover's bottom [m]."""
    w, arm = expert.world, expert.arm
    body = expert.mover
    obj_geoms = w.body_geoms(body)
    place = expert.place_center.copy()
    expert.phase = "handover"
    expert.place_center = np.array([spot[0], spot[1], w.table_top_z])
    arm.checker.carry(w.model.body(body).id, w.data)
    try:
        p_above, rot, q_above = expert._place_pose(
            box.center[:2] - tcp[:2], rot, w.table_top_z + CARRY_CLEARANCE + held
        )
        riding = (*obj_geoms, *sorted(expert._rider_geoms))
        carry = expert._move_joint(q_above, 0.0, allowed=riding)
    finally:
        arm.checker.carry(None)
    yield carry
    yield from expert._settle()
    p_down = p_above.copy()
    p_down[2] = w.table_top_z + RELEASE_HEIGHT + held
    yield expert._line(p_above, p_down, rot, 0.0)
    yield from expert._settle()
    yield from expert._grip(1.0)
    try:
        yield expert._line(p_down, p_down + np.array([0.0, 0.0, RETREAT_HEIGHT]), rot, 1.0)
    except ExpertError as exc:
        expert.warnings.append(f"handover retreat: {exc}")
    yield expert._move_joint(np.asarray(HOME_ARM, float), 1.0)
    yield from expert._settle()
    # the other arm takes over; this one holds its home pose
    expert._rest[arm.offset : arm.offset + 6] = expert._target_q
    expert._use(next(s for s in SIDES if s != expert.side))
    if expert.safe:
        expert.arm.checker.keep_clear(expert._hazards)
    expert.place_center = place
    expert._handed = True
    expert.warnings.append(f"handed over to the {expert.side} arm at {np.round(spot, 3).tolist()}")
    yield from expert._carry_out(rel, support_top, rest)
