"""The rsb workspace: table and arm geometry, one definition for every stage (pure Python).

The task-language linter, the layout sampler, the scene compiler and the expert all read these
numbers from here (no numpy or MuJoCo import, so ``rsb lint`` stays light); a test checks them
against the compiled MuJoCo scene.

Table frame: origin at the center of the table top, x to the robot's right, y away from the
robot, z up; metres. The world frame has the same x and y; the table top is at world
z = :data:`TABLE_TOP_Z`.
"""

from __future__ import annotations

import math

#: World z of the table top [m].
TABLE_TOP_Z = 0.75
#: Table-top half extents along x and y [m] (the Aloha table, 1.22 m x 0.76 m).
TABLE_HALF_XY = (0.61, 0.38)
#: Table-frame x, y of each arm's waist axis [m] (left arm at -x, right arm at +x).
ARM_BASE_XY: dict[str, tuple[float, float]] = {"left": (-0.469, 0.0), "right": (0.469, 0.0)}
#: Horizontal distance from an arm's waist axis within which it picks from above [m].
REACH_MIN, REACH_MAX = 0.20, 0.56
#: Extra distance [m] the layout keeps between a candidate's footprint and the answer zone.
ANSWER_ZONE_MARGIN = 0.01
#: Extra distance [m] the layout keeps between two candidate footprints beyond touching.
FOOTPRINT_CLEARANCE = 0.005
#: Extra distance [m] between a distractor's footprint and a candidate's, so the gripper
#: fingers fit between them.
DISTRACTOR_CLEARANCE = 0.03
#: Extra distance [m] between a hazard's footprint (an object the task's ``:cost`` names) and
#: a candidate's: close enough that a careless grasp of the candidate touches it.
HAZARD_CLEARANCE = 0.01
#: Extra distance [m] between a distractor's footprint and the answer zone, so the gripper
#: that places a candidate in the zone does not touch it.
DISTRACTOR_ZONE_MARGIN = 0.03
#: The scene's cameras (``(:camera NAME ...)`` blocks name one of them).
CAMERAS: tuple[str, ...] = ("head", "left_wrist", "right_wrist")
#: The ALOHA name of each camera, the one users train on: ``observation.images.<name>`` in a
#: LeRobot export, ``images.<name>`` sent to openpi and vla-eval model servers
#: (documented in :mod:`rsb_mj.env.cameras`).
ALOHA_CAMERA_NAMES: dict[str, str] = {
    "head": "cam_high",
    "left_wrist": "cam_left_wrist",
    "right_wrist": "cam_right_wrist",
}


def side_of(x: float) -> str:
    """The arm that serves table-frame x [m]: ``"right"`` for x >= 0, else ``"left"``."""
    return "right" if x >= 0.0 else "left"


def reachable(x: float, y: float) -> bool:
    """True when the arm on the side of table-frame point (x, y) [m] can pick there: its
    waist axis is between :data:`REACH_MIN` and :data:`REACH_MAX` away (the rule the layout
    sampler applies to every candidate center)."""
    bx, by = ARM_BASE_XY[side_of(x)]
    return REACH_MIN <= math.hypot(x - bx, y - by) <= REACH_MAX


def rect_reachable(x0: float, y0: float, x1: float, y1: float) -> bool:
    """True when some point of the rectangle ``[x0, x1] x [y0, y1]`` [m] is :func:`reachable`.

    Per arm, the rectangle clipped to that arm's side is convex, so the distances to the
    arm's waist axis over it form one interval: the rectangle reaches the arm's annulus when
    that interval meets ``[REACH_MIN, REACH_MAX]``.
    """
    for side, (bx, by) in ARM_BASE_XY.items():
        lo_x, hi_x = (max(x0, 0.0), x1) if side == "right" else (x0, min(x1, -1e-12))
        if lo_x > hi_x or y0 > y1:
            continue
        dx = max(lo_x - bx, 0.0, bx - hi_x)
        dy = max(y0 - by, 0.0, by - y1)
        near = math.hypot(dx, dy)
        far = math.hypot(max(abs(lo_x - bx), abs(hi_x - bx)), max(abs(y0 - by), abs(y1 - by)))
        if near <= REACH_MAX and far >= REACH_MIN:
            return True
    return False


#: Bodies of the robot scene whose names a task's objects cannot take (each object becomes a
#: body of its own name; MuJoCo rejects a repeated name). Names with a ``/`` are left out:
#: task-file names cannot contain one.
SCENE_BODY_NAMES = frozenset(
    {"world", "base", "table", "left_arm_mount", "right_arm_mount", "left_hand", "right_hand"}
)
