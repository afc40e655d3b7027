"""The placement rule for operated fixtures whose front faces the far arm (tier B).

LIBERO stands its cabinets and microwaves at the table's lateral sides (y = +-0.25..0.35 m in
its frame), their fronts turned toward the table's centre line. Through the frame map
(:mod:`rsb_mj.lang.frame_map`: LIBERO's y becomes rsb_mj's x, the arm-to-arm axis) such a
fixture lands beside one waist with its front facing the *other* arm: the near arm is behind
it, the far arm ~0.6 m from its handle, at the edge of its reach (``shared/reference/
articulated_fixtures.md`` section 1.4).

**The rule** (one, deterministic, applied when a tier B scene is compiled): an articulated
fixture with a part the expert pulls or swings out of its front (a cabinet's drawers, the
microwave's door; :data:`OPERATED`) that the goal operates or puts something into a closed
part of (:func:`operated`; a drawer open at ``:init`` or only holding an object is a prop)
whose front
points within 45 degrees of the world x axis toward the other side of the table
(``front_x * x < 0``) and whose centre is more than :data:`CENTRE_X` from the table's centre
line is moved along x to ``sign(x) * CENTRE_X``:
toward the centre, on its own side, its yaw and y unchanged. Where its footprint, grown by
what its part sweeps out of the front (:data:`SWEEP`), would then come within :data:`GAP` of
another fixture's, it slides along y by the least shift that keeps the gap on the table
(:func:`clear_xy`; LIBERO's ``KITCHEN_SCENE4``: the drawer would meet the wine rack), and
where none does it stops short, at the first x toward its place in the file (steps of
:data:`STEP`) that keeps the gap (:func:`clear_x`). The far arm then has the handle at
~0.42 m and the drawer pulled out at ~0.27 m (in its reach annulus). Objects whose ``:init``
place comes within a fixture's footprint are pushed clear by the layout as for any fixture.
The move is a layout change: the scene lists it (``GoalLayout.layout_changes``, worded by
:func:`label`) and a record names it (``goal.layout_changes``). Tier A files (static props)
and the stove (its knob is turned from above: only its reach matters) keep LIBERO's places.

**The arms' rule** (the second, also deterministic, applied after the scene is compiled:
``rsb_mj.scene.compiler``): a tier B fixture with a part open at ``:init`` (a drawer drawn in
LIBERO's open range) whose part, at the most open state of that range, touches an arm's link
at the robot's home pose (VLA-Arena's ``robustness_static_distractors`` mango files: a white
cabinet at x = -0.415 m whose top drawer, open 0.16 m toward the arms' line, starts inside
the left upper arm) is moved along x toward the table's centre, its y and yaw kept, by steps
of :data:`STEP` up to :data:`CENTRE_X`, to the first x where that part touches no arm link,
at home nor with the arm on its side reaching over the table's middle
(``rsb_mj.scene.aloha.HANDOVER_REACH_ARM``; else the first x clear at home), and the fixture
no other fixture; where none does, it stays (the layout then names the arm it starts in).
LIBERO's robots stand at the table's end, so their fixtures' drawers never meet an arm; the
Aloha's arms stand at its sides. The move is a layout change worded by :func:`arms_label`.
"""

from __future__ import annotations

import math

from rsb_mj.lang.task import Task
from rsb_mj.workspace import TABLE_HALF_XY

#: Fixture categories with a part pulled or swung out of their front.
OPERATED = frozenset({"wooden_cabinet", "white_cabinet", "microwave"})
#: How far [m] an operated part and the gripper working it sweep out of the fixture's front:
#: a drawer's 0.16 m travel and the fingers that push it home from in front of its bar
#: (0.07 m), the microwave door's width (0.26 m) and the gripper on its bar (0.04 m).
SWEEP = {"wooden_cabinet": 0.23, "white_cabinet": 0.23, "microwave": 0.30}
#: Where [m] (|x| of the body's centre, world) the rule puts such a fixture.
CENTRE_X = 0.05
#: A front within this angle [rad] of the x axis faces an arm.
FACING = math.radians(45.0)


#: Least gap [m] between the bounding boxes of a moved fixture's footprint and another's,
#: and the step [m] by which a move stops short to keep it.
GAP, STEP = 0.01, 0.01

Footprint = tuple[float, float, float, tuple[float, float]]  # x, y, yaw, half extents


def _aabb(x: float, y: float, yaw: float, half: tuple[float, float]) -> tuple[float, ...]:
    c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
    hx, hy = c * half[0] + s * half[1], s * half[0] + c * half[1]
    return (x - hx, y - hy, x + hx, y + hy)


def clear_x(
    x_file: float, x_rule: float, own: Footprint, others: list[Footprint], out: float = 0.0
) -> float:
    """The x [m] nearest ``x_rule`` from ``x_rule`` back to ``x_file`` (steps of
    :data:`STEP`) at which the fixture's footprint ``own`` (its x replaced), grown by
    ``out`` [m] out of its front (an open drawer, a swung door: :data:`SWEEP`), keeps
    :data:`GAP` from every one of ``others`` (bounding boxes, world); ``x_file`` when none
    does."""
    _, y, yaw, half = own
    boxes = [_aabb(*o) for o in others]
    n = max(1, math.ceil(abs(x_file - x_rule) / STEP))
    for k in range(n + 1):
        x = x_rule + (x_file - x_rule) * k / n
        if _clear(x, y, yaw, half, boxes, out):
            return x
    return x_file


#: Most [m] a moved fixture slides along y to keep :data:`GAP` at its rule's x, and the
#: room [m] its footprint keeps from the table's near and far edges.
Y_SHIFT, EDGE_ROOM = 0.4, 0.02


def _clear(
    x: float, y: float, yaw: float, half: tuple[float, float], boxes: list, out: float
) -> bool:
    """Whether the footprint at (``x``, ``y``), grown by ``out`` out of its front, keeps
    :data:`GAP` from every box of ``boxes``."""
    fx, fy = front_of(yaw)
    x0, y0, x1, y1 = _aabb(x, y, yaw, half)
    a = (
        x0 + min(0.0, fx * out),
        y0 + min(0.0, fy * out),
        x1 + max(0.0, fx * out),
        y1 + max(0.0, fy * out),
    )
    return all(
        a[2] + GAP <= b[0] or b[2] + GAP <= a[0] or a[3] + GAP <= b[1] or b[3] + GAP <= a[1]
        for b in boxes
    )


def clear_xy(
    x_file: float, x_rule: float, own: Footprint, others: list[Footprint], out: float = 0.0
) -> tuple[float, float]:
    """Where (x, y) [m, world] a moved fixture stands: at ``x_rule`` with its y kept when
    its footprint ``own`` (grown by ``out`` [m] out of its front) keeps :data:`GAP` from
    every one of ``others`` there; else at ``x_rule`` slid along y by the least shift
    (steps of :data:`STEP`, at most :data:`Y_SHIFT`, the smaller ``|y|`` first on a tie)
    that keeps the gap with the footprint :data:`EDGE_ROOM` inside the table's edges (an
    open drawer swept into a wine rack beside it: LIBERO's ``KITCHEN_SCENE4``); else
    ``(clear_x(...), y)``: stopped short along x, its y kept."""
    _, y, yaw, half = own
    boxes = [_aabb(*o) for o in others]
    _, y0, _, y1 = _aabb(x_rule, y, yaw, half)
    lo, hi = -TABLE_HALF_XY[1] + EDGE_ROOM - y0, TABLE_HALF_XY[1] - EDGE_ROOM - y1
    n = round(Y_SHIFT / STEP)
    shifts = sorted((k * STEP for k in range(-n, n + 1)), key=lambda dy: (abs(dy), abs(y + dy)))
    for dy in shifts:
        if lo <= dy <= hi and _clear(x_rule, y + dy, yaw, half, boxes, out):
            return x_rule, y + dy
    return clear_x(x_file, x_rule, own, others, out), y


def operated(task: Task, name: str) -> bool:
    """Whether ``task``'s goal operates fixture ``name`` (a state atom on it or on one of
    its regions) or puts something ``In`` one of its regions that ``:init`` does not open
    (the expert opens it first; into an open drawer it reaches from above)."""
    mine = name + "_"
    opened = {a.target for a in task.init_states if a.predicate in ("Open", "TurnOn")}
    return any(a.target == name or a.target.startswith(mine) for a in task.goal_states) or any(
        r.predicate == "In" and r.place.startswith(mine) and r.place not in opened
        for r in task.goal
    )


def front_of(yaw: float) -> tuple[float, float]:
    """World xy unit direction of a fixture's front (its body's -y) at world ``yaw`` [rad]."""
    return (math.sin(yaw), -math.cos(yaw))


def placement(category: str, x: float, yaw: float) -> float:
    """The x [m, world] a fixture of ``category`` (centre ``x``, world ``yaw``) stands at
    under the rule before other fixtures are considered (module docstring; ``x`` when the
    rule leaves it)."""
    if category not in OPERATED:
        return x
    fx, _ = front_of(yaw)
    if abs(fx) < math.cos(FACING) or fx * x >= 0.0 or abs(x) <= CENTRE_X:
        return x
    return math.copysign(CENTRE_X, x)


def label(
    name: str, x_file: float, x: float, yaw: float, y_file: float = 0.0, y: float | None = None
) -> str:
    """The layout change's label for fixture ``name`` moved from ``x_file`` to ``x`` [m]
    (and along y from ``y_file`` to ``y`` [m] where :func:`clear_xy` slid it)."""
    arm = "left" if front_of(yaw)[0] < 0 else "right"
    slid = ""
    if y is not None and abs(y - y_file) > 1e-9:
        slid = f" and along y from {y_file:+.3f} to {y:+.3f} m (clear of the fixture beside it)"
    return (
        f"{name}: moved along x from {x_file:+.3f} to {x:+.3f} m{slid} (toward the table's "
        f"centre; its front faces the {arm} arm across the table)"
    )


def arms_label(name: str, x_file: float, x: float, link: str) -> str:
    """The layout change's label for fixture ``name`` moved by the arms' rule (module
    docstring) from ``x_file`` to ``x`` [m, world], its open part having touched ``link``."""
    return (
        f"{name}: moved along x from {x_file:+.3f} to {x:+.3f} m (toward the table's centre; "
        f"its part open at :init touched {link} at the arms' home pose)"
    )


__all__ = [
    "CENTRE_X",
    "OPERATED",
    "SWEEP",
    "arms_label",
    "clear_x",
    "clear_xy",
    "front_of",
    "label",
    "operated",
    "placement",
]
