"""The expert operates articulated fixtures: drawers, the microwave door and the stove knob.

A goal task of tier B (``(Open wooden_cabinet_1_top_region)``, ``(Close microwave_1)``,
``(Turnon flat_stove_1)``, an ``In`` into a drawer) asks the expert to move a fixture's joint.
:func:`plan_steps` turns the goal's state atoms and placements into one ordered plan;
:func:`operate` carries out one :class:`Operation` with the goal expert's motion primitives
(IK, collision-free joint-space plans, time-parameterised tracking), every pose in the world
frame [m, rad]:

* **a drawer** (a ``slide`` joint): the handle bar is the drawer body's geom farthest out of
  its front. The gripper points into the drawer's front (level, else pitched down by
  :data:`BAR_PITCHES`), its fingers closing vertically, partly open (:data:`BAR_OPENING`:
  the lower finger clears the table under the bottom drawer's bar); it pinches the 1.6 cm
  tall bar from above and below, then moves in a straight line along the slide's axis: out
  to :data:`DRAWER_OPEN` (LIBERO's open: below -0.14 m) or in :data:`DRAWER_PAST` beyond the
  closed stop (LIBERO's closed: above 0); it lets go and backs straight off. A drawer with
  no other drawer above it is pushed home instead (pinched where the push is out of reach):
  the closed gripper, pointing down, comes down :data:`PUSH_OFFSET` in front of its bar
  (:data:`PUSH_DROP` below its centre) and pushes it along the slide at :data:`PUSH_SPEED`,
  then backs out of the front before it rises; under another drawer, whose bar the pushing
  hand would meet, the closed gripper pointing into the front presses the bar home with its
  finger tips (:data:`POKE_BACK`; pushed from above where that is out of reach).
* **a door or a knob** (a vertical ``hinge``): the microwave's bar handle is pinched with the
  gripper horizontal, pointing into the door, fingers closing along the door; the knob's
  grip ridge from above, fingers closing across the ridge. The gripper then turns about the
  hinge's vertical axis (its position on the arc about the axis, its rotation turned by the
  same angle) to the target angle: the door to :data:`DOOR_OPEN` (open: below -1.3 rad) or
  :data:`DOOR_PAST` beyond its shut stop (closed: above -0.005 rad), the knob to
  :data:`KNOB_ON` (on: at least 0.5 rad) or :data:`KNOB_PAST` below its 0 (off: below 0, the
  joint stops at -0.005 rad). A door whose bar no arm reaches through the closing arc is
  pushed shut on its outer face nearer the hinge (:data:`DOOR_PUSH_RADII`,
  :func:`_door_push`).

The arm is the first of the two (the one the fixture's front faces first) for which every
pose of the motion is in reach (:func:`operation_side`).

Plan order (:func:`plan_steps`): the goal's ``Open``/``TurnOn``/``TurnOff`` atoms and the
``Close`` atoms of fixtures nothing is put into first, in source order; a drawer the goal
puts something ``In`` is opened before (unless it is already open or an atom opens it);
then the placements (:func:`~rsb_mj.expert.placements.placement_order`); then the ``Close``
atoms of fixtures something is put into ("put the bowl in the drawer and close it").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.arm import AMAX, VMAX
from rsb_mj.expert.grasp import top_down_rotation
from rsb_mj.expert.timing import time_parameterize
from rsb_mj.lang.task import Relation, Task
from rsb_mj.scene.aloha import HOME_ARM, SIDES
from rsb_mj.workspace import ARM_BASE_XY

#: Drawer targets [m] of the slide (LIBERO: open below -0.14, closed above 0, limits
#: -0.16..0.01): pulled out to this, pushed in to this (2 cm past the stop at 0.01: the
#: push presses it home whichever finger faces the bar).
DRAWER_OPEN, DRAWER_PAST = -0.152, 0.03
#: Door targets [rad] (open below -1.3, closed above -0.005, limits -2.094..0).
DOOR_OPEN, DOOR_PAST = -1.45, 0.06
#: Knob targets [rad] (on at 0.5 or more, off below 0, limits -0.005..2.1).
KNOB_ON, KNOB_PAST = 0.75, -0.08
#: What must hold when the operation ends (LIBERO's thresholds with a margin) [m or rad]:
#: a drawer out beyond -0.145, in beyond 0.001; a door beyond -1.34, within -0.003; a knob
#: beyond 0.55, below -0.001. The motion's reachable part counts when it passes these.
MUST = {
    ("slide", True): -0.145,
    ("slide", False): 0.001,
    ("door", True): -1.34,
    ("door", False): -0.003,
    ("knob", True): 0.55,
    ("knob", False): -0.001,
}
#: Tries of one operation (each a fresh grasp from the measured state) before it fails.
TRIES = 3
#: A drawer counts as already open for a placement into it below this [m].
DRAWER_IS_OPEN = -0.12
#: Gripper command [0 closed .. 1 open] while approaching a drawer's bar: the fingers'
#: inner faces about 1.8 cm from the TCP, the lower finger's outside above the table.
BAR_OPENING = 0.7
#: Pitches [rad] of the gripper below level, tried in order, on a drawer's bar (a bottom
#: drawer's is 4.6 cm above the table: level is out of reach there).
BAR_PITCHES = (0.0, 0.3, 0.5, 0.8)
#: How far out of a drawer bar's centre [m] the TCP of the closed gripper that pushes it
#: home is: the bar's half depth, the fingers' half width across it, 4 mm.
PUSH_OFFSET = 0.0077 + 0.031 + 0.004
#: How far [m] below the bar's centre that TCP is (the finger faces cover the whole bar).
PUSH_DROP = 0.02
#: How far [m] back along the approach from the bar's centre the TCP of the closed gripper
#: that presses a drawer home with its finger tips stands (where no push from above is):
#: the bar's half depth, the tips 6 mm past the TCP, 2 mm into the bar (a pinched bar
#: catches behind the finger tips and comes back out with the retreat).
POKE_BACK = 0.0077 + 0.006 - 0.002
#: Pitches [rad] below level of the gripper on a door's vertical bar (any pitch about the
#: closing axis keeps the bar between the pads).
DOOR_PITCHES = (0.0, 0.4, 0.8)
#: Distances [m] from the hinge axis at which an open door is pushed shut, tried in order
#: where no arm reaches its bar handle (0.244 m out) through the closing arc.
DOOR_PUSH_RADII = (0.2, 0.15, 0.11)
#: Random IK starts tried per arm and grasp rotation after the arm's own joints.
IK_STARTS = 3
#: Gripper command on a door's bar or a knob's ridge (fully open).
WIDE_OPENING = 1.0
#: How far [m] the pre-grasp is from the grasp (along the approach) and the retreat after.
APPROACH, RETREAT = 0.07, 0.06
#: The knob's ridge is pinched this far [m] below its top.
RIDGE_DEPTH = 0.014
#: Steps [rad] of the turn about a hinge; the turn's speed and acceleration scales of the
#: arm's limits (slow to start: the knob's 1 kg m^2 must not slip in the fingers).
TURN_STEP, TURN_SPEED, TURN_ACCEL = 0.04, 0.1, 0.02
#: Speed scale of a drawer's pull (of the arm's limits), and of a push home by a gripper
#: that does not hold the bar (slow: the drawer's 50 N s/m damping stays a small force on
#: the arm's position servos; 0.08 before issue 44 left libero_10's "put the black bowl in
#: the bottom drawer and close it", a handover and a close in one episode, 2-31 steps past
#: the 600 on 3 of 5 seeds; 0.12 changed no other drawer file's success).
SLIDE_SPEED = 0.25
PUSH_SPEED = 0.12
#: Speed and acceleration scales of a door's swing, by its bar or pushed on its face (the
#: knob's :data:`TURN_SPEED` and :data:`TURN_ACCEL` before: a push shut took 220 of the
#: 600 steps, which libero_10's "put the mug in the microwave and close it" lacks).
DOOR_SPEED, DOOR_ACCEL = 0.8, 0.5


@dataclass(frozen=True)
class Operation:
    """One fixture joint to move.

    Attributes:
        predicate: ``"Open"``, ``"Close"``, ``"TurnOn"`` or ``"TurnOff"``.
        target: the atom's argument (a fixture, or a drawer's region).
        joint: the joint moved (``wooden_cabinet_1/top_level``).
        implicit: True for a drawer opened so that something can be put in it (no atom).
    """

    predicate: str
    target: str
    joint: str
    implicit: bool = False

    @property
    def text(self) -> str:
        """``Open wooden_cabinet_1_top_region``."""
        return f"{self.predicate} {self.target}" + (" (to put into it)" if self.implicit else "")


def _fixture_joints(model: mujoco.MjModel, target: str) -> list[str]:
    """The joints a state atom on ``target`` reads: a drawer region's own body's joint, or
    every joint of a whole fixture (``{fixture}/...``)."""
    try:
        site = model.site(target).id
    except KeyError:
        site = -1
    if site >= 0:
        body = int(model.site_bodyid[site])
        return [
            model.joint(j).name
            for j in range(model.njnt)
            if int(model.jnt_bodyid[j]) == body
            and model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE)
        ]
    return [
        model.joint(j).name
        for j in range(model.njnt)
        if model.joint(j).name.startswith(target + "/")
        and model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE)
    ]


def _is_open(model: mujoco.MjModel, data: mujoco.MjData, joint: str) -> bool:
    j = model.joint(joint)
    return bool(data.qpos[j.qposadr[0]] < DRAWER_IS_OPEN)


def plan_steps(
    task: Task,
    placements: Sequence[Relation],
    model: mujoco.MjModel,
    data: mujoco.MjData,
) -> tuple[Relation | Operation, ...]:
    """The expert's plan: the goal's fixture operations and its ``placements`` (already in
    their order) in the order they are carried out (module docstring). ``data``: the state
    at reset (which drawers are open already). A whole fixture's ``Close``/``TurnOff``
    moves each of its joints; its ``Open``/``TurnOn`` the first.

    Raises:
        ExpertError: for an atom on something without a joint in ``model``.
    """
    into = {r.place for r in placements if r.predicate == "In" and r.kind == "site"}

    def filled(target: str) -> bool:
        return target in into or any(p.startswith(target + "_") for p in into)

    pre: list[Operation] = []
    post: list[Operation] = []
    opened: set[str] = set()
    for atom in task.goal_states:
        joints = _fixture_joints(model, atom.target)
        if not joints:
            raise ExpertError(f"{atom.text}: {atom.target!r} has no joint to move")
        if atom.predicate in ("Open", "TurnOn"):
            joints = joints[:1]
        ops = [Operation(atom.predicate, atom.target, j) for j in joints]
        if atom.predicate == "Close" and filled(atom.target):
            post += ops
        else:
            pre += ops
        if atom.predicate == "Open":
            opened.update(joints)
    implicit: list[Operation] = []
    for place in dict.fromkeys(r.place for r in placements if r.place in into):
        joints = _fixture_joints(model, place)
        for j in joints:
            if model.jnt_type[model.joint(j).id] != mujoco.mjtJoint.mjJNT_SLIDE:
                continue
            if j in opened or _is_open(model, data, j):
                continue
            implicit.append(Operation("Open", place, j, implicit=True))
            opened.add(j)
    return (*implicit, *pre, *placements, *post)


#: Gap [m] between a mover put into a drawer and the cabinet's front above it.
FRONT_GAP = 0.012
#: How far [m] a mover's footprint may reach past its drawer region's front edge: the
#: drawer's front wall stands 8 mm beyond it (LIBERO's region), less 3 mm. A drawer under
#: another (whose bar the mover must clear on its way down) takes the mover's centre out to
#: :data:`INSET` inside the region's front edge instead.
WALL_ROOM, INSET = 0.005, 0.01


def drawer_spot(
    model: mujoco.MjModel, data: mujoco.MjData, site: str, xy: np.ndarray, radius: float
) -> np.ndarray:
    """Where (world xy [m]) a mover of footprint ``radius`` [m] goes into the drawer whose
    region is ``site`` (centre ``xy``): moved out along the drawer's opening direction until
    it is :data:`FRONT_GAP` clear of the cabinet's front (the carcass and the other drawers,
    which cover the back of a lower drawer's region), no farther than keeps its footprint
    inside the drawer's front wall (:data:`WALL_ROOM`; under another drawer, its centre
    :data:`INSET` inside the region); ``xy`` unchanged for a region that is not on a
    drawer."""
    sid = model.site(site).id
    body = int(model.site_bodyid[sid])
    slides = [
        j
        for j in range(model.njnt)
        if int(model.jnt_bodyid[j]) == body and model.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE
    ]
    if not slides:
        return xy
    out = -(data.xmat[body].reshape(3, 3) @ model.jnt_axis[slides[0]])
    out[2] = 0.0
    out /= np.linalg.norm(out)
    root = int(model.body_parentid[body])
    front = -np.inf
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        if b == body or not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        if b != root and int(model.body_parentid[b]) != root:
            continue
        if b != root:  # another drawer: its front only while it is (about) closed
            js = [j for j in range(model.njnt) if int(model.jnt_bodyid[j]) == b]
            if js and data.qpos[model.jnt_qposadr[js[0]]] < -0.02:
                continue
        R = data.geom_xmat[g].reshape(3, 3)
        half = model.geom_size[g] if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX else None
        if half is None:
            continue
        reach = float(data.geom_xpos[g] @ out + np.abs(R.T @ out) @ half)
        front = max(front, reach)
    s_site = float(np.append(xy, 0.0) @ out)
    half_out = float(np.abs(data.site_xmat[sid].reshape(3, 3).T @ out) @ model.site_size[sid])
    want = front + radius + FRONT_GAP
    above = _drawers_above(model, data, body)
    cap = half_out - INSET if above else half_out - radius + WALL_ROOM
    s = max(s_site, min(want, s_site + cap))
    return xy + (s - s_site) * out[:2]


def _drawers_above(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> list[int]:
    """The bodies of the drawers of ``body``'s cabinet higher up than it (their bars stick
    out over it)."""
    root = int(model.body_parentid[body])
    z = _geoms_z(model, data, body)
    return [
        b
        for b in range(model.nbody)
        if b != body
        and int(model.body_parentid[b]) == root
        and int(model.body_jntnum[b]) > 0
        and _geoms_z(model, data, b) > z
    ]


def _geoms_z(model: mujoco.MjModel, data: mujoco.MjData, body: int) -> float:
    """Mean world z [m] of ``body``'s geoms (a drawer's height; its origin is the
    cabinet's)."""
    zs = [float(data.geom_xpos[g][2]) for g in range(model.ngeom) if model.geom_bodyid[g] == body]
    return float(np.mean(zs)) if zs else float(data.xpos[body][2])


@dataclass(frozen=True)
class Handle:
    """Where the gripper takes a fixture's moving part, world frame, at the current state.

    Attributes:
        point: the TCP at the grasp [m].
        rotations: the TCP rotations tried, best first (3x3 each).
        approach: unit direction the gripper moves along into the grasp.
        opening: gripper command [0..1] while approaching.
        kind: ``"slide"`` or ``"hinge"``.
        axis: a slide's opening direction (unit; the handle's motion for a negative qpos),
            or a hinge's axis (unit, world z up for the fixtures here).
        center: a hinge's anchor (a point on its axis) [m]; unused for a slide.
        body: the moving part's body id.
    """

    point: np.ndarray
    rotations: tuple[np.ndarray, ...]
    approach: np.ndarray
    opening: float
    kind: str
    axis: np.ndarray
    center: np.ndarray
    body: int = -1


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _frame(z: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A rotation whose z axis is ``z`` and whose x axis is ``x`` (orthogonalised)."""
    z = z / np.linalg.norm(z)
    x = x - (x @ z) * z
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _outermost_geom(
    model: mujoco.MjModel, data: mujoco.MjData, body: int, direction: np.ndarray, kind=None
) -> int:
    """The collision geom of ``body`` whose centre lies farthest along ``direction``."""
    geoms = [
        g
        for g in range(model.ngeom)
        if int(model.geom_bodyid[g]) == body
        and (model.geom_contype[g] or model.geom_conaffinity[g])
        and (kind is None or model.geom_type[g] == kind)
    ]
    if not geoms:
        raise ExpertError(f"body {model.body(body).name!r} has no collision geom to take")
    return max(geoms, key=lambda g: float(data.geom_xpos[g] @ direction))


def handle_of(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    joint: str,
    *,
    push: bool = False,
    radius: float = DOOR_PUSH_RADII[0],
) -> Handle:
    """Where and how the gripper takes the part ``joint`` moves (module docstring); with
    ``push``, a drawer's bar is pushed home instead: the closed gripper, pointing down, its
    fingers (closing along the bar) :data:`PUSH_OFFSET` out of the bar's centre; a door is
    pushed shut: the closed gripper, pointing down, against the door's outer face
    ``radius`` [m] from the hinge axis at the door's mid height (:func:`_door_push`).

    Raises:
        ExpertError: for a joint that is not a slide or a vertical hinge.
    """
    j = model.joint(joint)
    body = int(j.bodyid[0])
    bmat = data.xmat[body].reshape(3, 3)
    axis = bmat @ model.jnt_axis[j.id]
    up = np.array([0.0, 0.0, 1.0])
    if model.jnt_type[j.id] == mujoco.mjtJoint.mjJNT_SLIDE:
        out = -axis  # a negative qpos pulls the drawer out along -axis
        out[2] = 0.0
        out /= np.linalg.norm(out)
        bar = _outermost_geom(model, data, body, out)
        p = data.geom_xpos[bar].copy()
        if push:
            along = np.cross(up, out)
            rots = (top_down_rotation(along, 0.0), top_down_rotation(-along, 0.0))
            p = p + PUSH_OFFSET * out - PUSH_DROP * up
            return Handle(p, rots, -up, 0.0, "slide", out, np.zeros(3), body)
        rots = []
        for pitch in BAR_PITCHES:  # pointing into the front, then down into it too (low)
            z = -np.cos(pitch) * out - np.sin(pitch) * up
            x = np.cos(pitch) * up - np.sin(pitch) * out
            rots += [_frame(z, x), _frame(z, -x)]
        return Handle(p, tuple(rots), rots[0][:, 2], BAR_OPENING, "slide", out, np.zeros(3), body)
    if model.jnt_type[j.id] != mujoco.mjtJoint.mjJNT_HINGE or abs(axis[2]) < 0.99:
        raise ExpertError(f"{joint}: only slides and vertical hinges are operated")
    axis = up * np.sign(axis[2])
    anchor = data.xanchor[j.id].copy()
    if push:
        return _door_push(model, data, body, axis, anchor, radius)
    capsules = [
        g
        for g in range(model.ngeom)
        if int(model.geom_bodyid[g]) == body and model.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE
    ]
    vertical = [g for g in capsules if abs(data.geom_xmat[g].reshape(3, 3)[2, 2]) > 0.99]
    if vertical:  # a door's bar handle: the vertical capsule farthest from the hinge
        bar = max(vertical, key=lambda g: float(np.linalg.norm((data.geom_xpos[g] - anchor)[:2])))
        p = data.geom_xpos[bar].copy()
        radial = p - anchor
        radial[2] = 0.0
        radial /= np.linalg.norm(radial)
        # the door's outward normal: the side of the door the bar stands proud of
        door = [g for g in range(model.ngeom) if int(model.geom_bodyid[g]) == body]
        door_g = max(door, key=lambda g: float(np.prod(model.geom_size[g])))
        normal = p - data.geom_xpos[door_g]
        normal -= (normal @ radial) * radial
        normal[2] = 0.0
        normal /= np.linalg.norm(normal)
        rots = []
        for pitch in DOOR_PITCHES:  # level into the door, then down into it too
            z = -np.cos(pitch) * normal - np.sin(pitch) * up
            rots += [_frame(z, radial), _frame(z, -radial)]
        return Handle(p, tuple(rots), -normal, WIDE_OPENING, "hinge", axis, anchor, body)
    # a knob: its highest geom, taken from above across its narrow side
    geoms = [g for g in range(model.ngeom) if int(model.geom_bodyid[g]) == body]
    ridge = max(
        (g for g in geoms if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX),
        key=lambda g: float(data.geom_xpos[g][2] + model.geom_size[g][2]),
    )
    gmat = data.geom_xmat[ridge].reshape(3, 3)
    half = model.geom_size[ridge]
    k = int(np.argmin(half[:2]))
    across = gmat[:, k].copy()
    across[2] = 0.0
    across /= np.linalg.norm(across)
    top = float(data.geom_xpos[ridge][2] + half[2])
    p = data.geom_xpos[ridge].copy()
    p[2] = top - RIDGE_DEPTH
    rots = (top_down_rotation(across, 0.0), top_down_rotation(-across, 0.0))
    return Handle(p, rots, -up, WIDE_OPENING, "hinge", axis, anchor, body)


def _door_push(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    body: int,
    axis: np.ndarray,
    anchor: np.ndarray,
    radius: float,
) -> Handle:
    """The push that swings a door (``body``, turning about ``axis`` through ``anchor``)
    shut: the closed gripper, pointing down, its fingers closing along the door, stands
    :data:`PUSH_OFFSET` less the bar's half depth plus the door's half thickness off the
    face that leads away from the closing motion, ``radius`` [m] from the axis at the
    door's mid height; the motion turns it about the axis with the door (an open
    microwave's bar handle is out of both arms' reach, its face in reach nearer the
    hinge)."""
    door = [
        g
        for g in range(model.ngeom)
        if int(model.geom_bodyid[g]) == body and model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX
    ]
    if not door:
        raise ExpertError(f"body {model.body(body).name!r} has no door plate to push")
    plate = max(door, key=lambda g: float(np.prod(model.geom_size[g])))
    centre = data.geom_xpos[plate]
    radial = centre - anchor
    radial[2] = 0.0
    radial /= np.linalg.norm(radial)
    closing = np.cross(axis, radial)  # a positive turn (toward shut) moves the door along it
    thick = float(np.min(model.geom_size[plate]))
    p = anchor + radius * radial
    p[2] = float(centre[2])
    p -= (thick + 0.031 + 0.004) * closing
    rots = (top_down_rotation(radial[:2], 0.0), top_down_rotation(-radial[:2], 0.0))
    up = np.array([0.0, 0.0, 1.0])
    return Handle(p, rots, -up, 0.0, "hinge", axis, anchor, body)


def part_kind(model: mujoco.MjModel, joint: str) -> str:
    """``"slide"`` (a drawer), ``"door"`` (a hinge opening toward negative angles) or
    ``"knob"`` (a hinge turned on toward positive ones)."""
    j = model.joint(joint)
    if model.jnt_type[j.id] == mujoco.mjtJoint.mjJNT_SLIDE:
        return "slide"
    return "door" if model.jnt_range[j.id][1] <= 0.01 else "knob"


def target_of(op: Operation, model: mujoco.MjModel) -> float:
    """The joint position [m or rad] the operation drives ``op.joint`` to."""
    opening = op.predicate in ("Open", "TurnOn")
    aims = {"slide": (DRAWER_OPEN, DRAWER_PAST), "door": (DOOR_OPEN, DOOR_PAST),
            "knob": (KNOB_ON, KNOB_PAST)}  # fmt: skip
    return aims[part_kind(model, op.joint)][0 if opening else 1]


def passed(op: Operation, model: mujoco.MjModel, q: float) -> bool:
    """Whether joint position ``q`` is past what ``op`` must reach (:data:`MUST`)."""
    kind = part_kind(model, op.joint)
    opening = op.predicate in ("Open", "TurnOn")
    must = MUST[(kind, opening)]
    toward_negative = (kind in ("slide", "door")) == opening
    return q < must if toward_negative else q > must


def motion_poses(h: Handle, q_now: float, q_goal: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The TCP poses (position [m], rotation) of moving the held part from ``q_now`` to
    ``q_goal`` for rotation ``h.rotations[0]`` (the caller rotates the list for another):
    a straight line along the slide, an arc about the hinge's axis (its rotations turned with
    it), one pose per :data:`~rsb_mj.expert.pick_place.LINE_STEP` or :data:`TURN_STEP`."""
    R0 = h.rotations[0]
    if h.kind == "slide":
        travel = q_now - q_goal  # a negative qpos moves the bar along h.axis
        n = max(1, int(np.ceil(abs(travel) / 0.005)))
        return [(h.point + h.axis * travel * k / n, R0) for k in range(1, n + 1)]
    turn = (q_goal - q_now) * float(h.axis[2])
    n = max(1, int(np.ceil(abs(turn) / TURN_STEP)))
    out = []
    for k in range(1, n + 1):
        rz = _rot_z(turn * k / n)
        out.append((h.center + rz @ (h.point - h.center), rz @ R0))
    return out


def _motion_path(
    expert: Any, arm: Any, h: Handle, R: np.ndarray, op: Operation, q_now: float, q0: np.ndarray
) -> np.ndarray | None:
    """The arm's joints [rad] through the motion of ``op`` from the grasp joints ``q0`` (the
    first row) with grasp rotation ``R``: every pose toward the target, or the reachable
    ones when they get past what the operation must reach (:func:`passed`); None
    otherwise."""
    m = expert.world.model
    q_goal = target_of(op, m)
    h2 = Handle(h.point, (R,), h.approach, h.opening, h.kind, h.axis, h.center, h.body)
    poses = motion_poses(h2, q_now, q_goal)
    path = [np.asarray(q0, float)]
    for k, (p, r) in enumerate(poses):
        try:
            qk = arm.ik.solve(p, r, q0=path[-1], rng=expert._rng, restarts=0).q
        except ExpertError:
            qk = None
        if qk is None or np.abs(qk - path[-1]).max() > 0.3:
            reached = q_now + (q_goal - q_now) * k / len(poses)
            if k == 0 or not passed(op, m, reached):
                return None
            break
        path.append(qk)
    return np.stack(path)


def _reaches(expert: Any, side: str, h: Handle, R: np.ndarray, op: Operation, q_now: float):
    """Joints of the pre-grasp, the grasp and the motion (:func:`_motion_path`) for the arm
    on ``side`` with grasp rotation ``R``, the pre-grasp and the grasp touching nothing but
    the moving part: from the arm's joints, then from :data:`IK_STARTS` random ones; None
    where none is."""
    arm = expert._arms[side]
    rng = expert._rng
    w = expert.world
    moving = {g for g in range(w.model.ngeom) if int(w.model.geom_bodyid[g]) == h.body}
    arm.checker.allowed = moving
    arm.checker.set_scene(w.data, q_start=arm.q(w.data))
    starts = [arm.q(w.data)] + [rng.uniform(arm.ik.lower, arm.ik.upper) for _ in range(IK_STARTS)]
    for q0 in starts:
        try:
            q = arm.ik.solve(h.point, R, q0=q0, rng=rng, restarts=2).q
            q_pre = arm.ik.solve(h.point - APPROACH * R[:, 2], R, q0=q, rng=rng, restarts=0).q
        except ExpertError:
            continue
        if arm.checker.in_collision(q_pre) or arm.checker.in_collision(q):
            continue
        path = _motion_path(expert, arm, h, R, op, q_now, q)
        if path is not None:
            return q_pre, q, path
    return None


def operation_side(expert: Any, h: Handle, op: Operation, q_now: float):
    """(side, grasp rotation, pre-grasp joints, grasp joints, motion path) of the first arm
    and grasp rotation that reach the whole operation: the arm the handle's approach points
    away from first (the one facing the fixture's front), then the other.

    Raises:
        ExpertError: when neither arm reaches it.
    """
    facing = sorted(
        SIDES,
        key=lambda s: float(h.approach[:2] @ (h.point[:2] - np.asarray(ARM_BASE_XY[s]))),
        reverse=True,
    )
    for side in facing:
        for R in h.rotations:
            got = _reaches(expert, side, h, R, op, q_now)
            if got is not None:
                return side, R, *got
    raise ExpertError(
        f"no arm reaches the handle at {np.round(h.point, 3).tolist()} through the motion"
    )


def operate(expert: Any, op: Operation) -> Iterator[list[np.ndarray]]:
    """Carry out ``op`` with ``expert`` (a :class:`~rsb_mj.expert.pick_place.PickPlaceExpert`):
    approach the handle (a collision-free plan), go straight in, close on it, move it to the
    target (:func:`target_of`), let go, back straight off and go home (module docstring);
    again from the measured state, up to :data:`TRIES` times in all, while the joint is not
    past what it must reach (a knob slips in the fingers); nothing where it is past that
    already.

    Raises:
        ExpertError: when no arm reaches the handle through the motion, a straight segment
            needs a jump, or the joint is not past its threshold after :data:`TRIES` tries.
    """
    m, d = expert.world.model, expert.world.data
    adr = m.jnt_qposadr[m.joint(op.joint).id]
    if passed(op, m, float(d.qpos[adr])):  # past it already (LIBERO's stove on at :init)
        return
    for _ in range(TRIES):
        yield from _operate_once(expert, op)
        if passed(op, m, float(d.qpos[adr])):
            return
        expert.warnings.append(f"{op.text}: {op.joint} at {float(d.qpos[adr]):.3f}, again")
    raise ExpertError(f"{op.text}: {op.joint} at {float(d.qpos[adr]):.3f} after {TRIES} tries")


def _operate_once(expert: Any, op: Operation) -> Iterator[list[np.ndarray]]:
    """One try of :func:`operate`."""
    w = expert.world
    m, d = w.model, w.data
    jid = m.joint(op.joint).id
    adr = m.jnt_qposadr[jid]
    q_now = float(d.qpos[adr])
    expert.phase = f"{op.predicate.lower()} approach"
    # a drawer is pushed home from above, unless another drawer's bar sticks out over it
    # (then pinched, and pushed where the pinch is out of reach)
    ways: list[tuple[bool, float]] = [(False, 0.0)]
    kind = part_kind(m, op.joint)
    if op.predicate == "Close" and kind == "slide":
        ways = [(False, 0.0), (True, 0.0)]
        if not _drawers_above(m, d, int(m.jnt_bodyid[jid])):
            ways.reverse()
    elif op.predicate == "Close" and kind == "door":  # the bar, else a push on the face
        ways += [(True, r) for r in DOOR_PUSH_RADII]
    poke = op.predicate == "Close" and kind == "slide"
    for k, (push, radius) in enumerate(ways):
        h = handle_of(m, d, op.joint, push=push, radius=radius or DOOR_PUSH_RADII[0])
        if poke and not push:  # pressed home by the closed finger tips, not pinched
            h = Handle(h.point - POKE_BACK * h.approach, h.rotations, h.approach, 0.0,
                       h.kind, h.axis, h.center, h.body)  # fmt: skip
        try:
            side, R, q_pre, _, path = operation_side(expert, h, op, q_now)
            break
        except ExpertError:
            if k == len(ways) - 1:
                raise
    if side != expert.side:
        expert._rest[expert.arm.offset : expert.arm.offset + 6] = expert._target_q
        expert._use(side)
    arm = expert.arm
    # the fixture's own moving body is touched by design
    moving = [g for g in range(m.ngeom) if int(m.geom_bodyid[g]) == int(m.jnt_bodyid[jid])]
    yield expert._move_joint(q_pre, h.opening)
    yield from expert._settle()
    expert.phase = f"{op.predicate.lower()} reach"
    yield expert._line(h.point - APPROACH * R[:, 2], h.point, R, h.opening, speed=0.25)
    yield from expert._settle()
    grip = not push and not poke
    if grip:
        expert.phase = f"{op.predicate.lower()} grip"
        yield from expert._grip(0.0)
    motion = "push" if push or poke else "pull" if h.kind == "slide" else "turn"
    expert.phase = f"{op.predicate.lower()} {motion}"
    # from the joints the arm was sent to (the straight reach's IK branch, not the plan's)
    again = _motion_path(expert, arm, h, R, op, q_now, expert._target_q)
    if again is None:
        raise ExpertError(f"{op.text}: the motion is out of reach from the grasp")
    path = again
    speed = (PUSH_SPEED if push or poke else SLIDE_SPEED) if h.kind == "slide" else TURN_SPEED
    accel = speed if h.kind == "slide" else TURN_ACCEL
    if kind == "door":  # a light door (0.5 N m s/rad), not the knob's 1 kg m^2
        speed, accel = DOOR_SPEED, DOOR_ACCEL
    traj = time_parameterize(path, VMAX * speed, AMAX * accel, expert.dt, stop_at_waypoints=False)
    yield expert._actions(traj, 0.0)
    yield from expert._settle()
    if grip:
        expert.phase = f"{op.predicate.lower()} release"
        yield from expert._grip(WIDE_OPENING if h.kind == "hinge" else h.opening)
    expert.phase = f"{op.predicate.lower()} retreat"
    yield from _retreat(expert, op, h, push)
    expert.phase = "home"
    yield expert._move_joint(np.asarray(HOME_ARM, float), 1.0, allowed=tuple(moving))
    yield from expert._settle()


def _retreat(expert: Any, op: Operation, h: Handle, push: bool) -> Iterator[list[np.ndarray]]:
    """Back the gripper off the part it let go of: straight back along its own axis
    (:data:`RETREAT`); after a push home, straight out of the cabinet's front first (along
    the slide's opening direction ``h.axis``: the fingers that pushed a lower drawer home
    stand under the drawer above, whose bar a straight rise meets) and then up. A segment
    out of reach is skipped with a warning (the way home is planned from where the
    gripper is)."""
    arm = expert.arm
    d = expert.world.data
    p, r = arm.tcp(d)
    p, r = p.copy(), r.copy()
    steps = [-RETREAT * r[:, 2]]
    if push and h.kind == "slide":
        steps = [RETREAT * h.axis, np.array([0.0, 0.0, RETREAT])]
    for step in steps:
        try:
            yield expert._line(p, p + step, r, h.opening)
        except ExpertError as exc:
            expert.warnings.append(f"{op.text}: retreat: {exc}")
            return
        yield from expert._settle()
        p = p + step


__all__ = [
    "Handle",
    "Operation",
    "drawer_spot",
    "handle_of",
    "motion_poses",
    "operate",
    "operation_side",
    "part_kind",
    "passed",
    "plan_steps",
    "target_of",
]
