"""The frame map: where a LIBERO / VLA-Arena task's regions land on the Aloha table. Pure Python.

LIBERO's and VLA-Arena's ``:ranges`` are in their table frame (x forward from their robot, y to
its left). They map to rsb_mj's table frame (x to the right of the head camera's view, y away
from it; :mod:`rsb_mj.workspace`) by::

    x = s * y_L + shift_x        y = -s * x_L + shift_y        yaw = yaw_L - pi / 2

which keeps image-left image-left between LIBERO's ``agentview`` and the head camera. The
scale ``s`` (1.0, else 0.85 or 0.75) and the shift are chosen once per task by
:func:`choose_map`, deterministically: the first scale, then the shift nearest the origin
on a 0.025 m grid (lateral within +-0.25 m, depth within +-0.3 m), for which one arm reaches
both ends of every goal pair (the mover's ``:init`` region and its place) and every region
centre lies on the table and off the arms' bases. When no scale and shift has both, the one
with the most goal pairs reachable is kept and each region whose centre still lands off the
table (LIBERO's table is 1.2 m deep, the Aloha's 0.76 m) or on an arm's base is moved, alone,
the shortest way back onto the table and out of the base's disc (:attr:`FrameMap.moved`).

**Floor scenes (tier C).** LIBERO's ``libero_object`` and VLA-Arena's
``generalization_unseen_objects`` (``extrapolation_unseen_objects`` in its later releases)
stand their objects, basket or box on a floor patch (``(:fixtures floor - floor)``, regions
``(:target floor)``) with the robot 0.6 m behind the patch's origin, as it stands 0.66 m behind
a table's centre. One rule re-hosts the patch on the Aloha table: the floor's frame is taken
as the table's (its origin at the table's centre, the same axes) and its regions go through
this frame map like a table's, one scale and shift for all, so the objects, the basket and
the box keep their relative layout (the patch, 0.40 x 0.54 m, fits the table). Records of
such a file say so: :func:`layout_change` is ``sim.layout_change``.

The scene (:mod:`rsb_mj.scene.region_layout`) builds with this map and the linter
(:mod:`rsb_mj.lang.rules.runtime_goal`) checks with it, so both see the same layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rsb_mj.lang.ast import Rect
from rsb_mj.lang.task import Task
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN, TABLE_HALF_XY

__all__ = [
    "EDGE_MARGIN",
    "HIGH_REACH",
    "REACH_MARGIN",
    "SCALES",
    "SHIFT_STEP",
    "SHIFT_X",
    "SHIFT_Y",
    "FrameMap",
    "centre",
    "choose_map",
    "goal_pair_reachable",
    "layout_change",
    "owner_of",
    "region_rect",
    "root_region",
]

#: Scales tried, in order, when no shift at full scale makes every goal pair reachable.
SCALES = (1.0, 0.85, 0.75, 0.65, 0.55)
#: Lateral (x) and depth (y) shift bounds [m] of the frame map, and the grid step.
SHIFT_X, SHIFT_Y, SHIFT_STEP = 0.25, 0.30, 0.025
#: Margin [m] kept inside the reach annulus for goal ends, and inside the table edge.
REACH_MARGIN, EDGE_MARGIN = 0.06, 0.04
#: How much nearer [m] a place on a fixture must be than the other ends (it is high).
HIGH_REACH = 0.06


@dataclass(frozen=True)
class FrameMap:
    """The map from the LIBERO / VLA-Arena table frame to rsb_mj's (module docstring).

    Attributes:
        scale: the factor on LIBERO lengths.
        shift: (x, y) [m, rsb table frame] added after scaling.
        moved: (region full name, dx, dy) [m, rsb table frame]: regions moved, alone, back
            onto the table or off an arm's base after the shift.
    """

    scale: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)
    moved: tuple[tuple[str, float, float], ...] = ()

    def point(self, x_l: float, y_l: float) -> tuple[float, float]:
        """rsb table-frame (x, y) [m] of LIBERO point (x_l, y_l)."""
        return (self.scale * y_l + self.shift[0], -self.scale * x_l + self.shift[1])

    def rect(self, r: Rect, region: str | None = None) -> tuple[float, float, float, float]:
        """rsb (x0, y0, x1, y1) [m] of a LIBERO ``:ranges`` rectangle (of ``region``, whose
        own move applies when it was moved)."""
        ax, ay = self.point(r.x0, r.y0)
        bx, by = self.point(r.x1, r.y1)
        dx, dy = next(((mx, my) for name, mx, my in self.moved if name == region), (0.0, 0.0))
        return (min(ax, bx) + dx, min(ay, by) + dy, max(ax, bx) + dx, max(ay, by) + dy)

    @staticmethod
    def yaw(yaw_l: float) -> float:
        """rsb yaw [rad] of a LIBERO yaw."""
        return yaw_l - math.pi / 2


#: Workspace categories rsb_mj re-hosts on its table, and the layout change a record of such
#: a file names (module docstring; ``rsb_mj.lang.buildable.TABLES`` counts them as tables).
REHOSTED: dict[str, str] = {
    "floor": "floor patch on the table: the floor's regions mapped as the table's (origin at "
    "the table centre), objects and container in their relative layout",
}


def layout_change(task: Task) -> str:
    """The layout change a record of ``task`` names (``sim.layout_change``): ``""`` for a
    table workspace (LIBERO's and VLA-Arena's tables keep their geometry through the frame
    map), :data:`REHOSTED`'s text for a floor scene (tier C)."""
    return REHOSTED.get(task.fixtures.get(task.table, ""), "")


def region_rect(task: Task, full_name: str) -> Rect | None:
    """The first ``:ranges`` rectangle of region ``full_name`` (LIBERO frame), or None."""
    for region in task.problem.regions:
        if region.full_name == full_name and region.ranges:
            return region.ranges[0]
    return None


def centre(r: Rect) -> tuple[float, float]:
    """The centre (x, y) [m] of ``r``."""
    return ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)


def root_region(task: Task, name: str, seen: tuple[str, ...] = ()) -> Rect | None:
    """The table region under ``name`` (following ``On a b`` / sites down to the table)."""
    if name in seen:
        return None
    for rel in task.init:
        if rel.mover != name:
            continue
        if rel.kind == "region":
            return region_rect(task, rel.place)
        owner = rel.place if rel.kind == "object" else owner_of(task, rel.place)
        if owner:
            return root_region(task, owner, (*seen, name))
    return None


def owner_of(task: Task, site: str) -> str | None:
    """The fixture or object a site ``{owner}_{region}`` belongs to."""
    for region in task.problem.regions:
        if region.full_name == site and region.target:
            return region.target
    names = sorted({*task.objects, *task.fixtures}, key=len, reverse=True)
    return next((n for n in names if site.startswith(n + "_")), None)


def _on_fixture(task: Task, name: str) -> bool:
    """True when ``name`` starts on a fixture other than the table (``:init``)."""
    for rel in task.init:
        if rel.mover == name and rel.kind != "region":
            owner = rel.place if rel.kind == "object" else owner_of(task, rel.place)
            return owner in task.fixtures and owner != task.table
    return False


def _reach(x: float, y: float, side: str) -> float:
    bx, by = ARM_BASE_XY[side]
    return math.hypot(x - bx, y - by)


@dataclass(frozen=True)
class _Pair:
    """The two ends of a goal relation: LIBERO-frame centres (x, y) [m] and the outer reach
    limit [m] of each (nearer for an end on a fixture: it is high)."""

    ends: tuple[tuple[float, float], tuple[float, float]]
    outer: tuple[float, float]


def _pair(task: Task, index: int) -> _Pair | None:
    rel = task.goal[index]
    place_owner = rel.place if rel.kind == "object" else owner_of(task, rel.place)
    mover = root_region(task, rel.mover)
    if rel.kind == "region":
        place = region_rect(task, rel.place)
    else:
        place = root_region(task, place_owner or "")
    if mover is None or place is None:
        return None
    far = REACH_MAX - REACH_MARGIN
    outer = (
        far - (HIGH_REACH if _on_fixture(task, rel.mover) else 0.0),
        far - (HIGH_REACH if place_owner in task.fixtures else 0.0),
    )
    return _Pair((centre(mover), centre(place)), outer)


def _reachable(pair: _Pair, fmap: FrameMap) -> bool:
    pts = [fmap.point(*e) for e in pair.ends]
    return any(
        all(
            REACH_MIN + REACH_MARGIN <= _reach(x, y, s) <= limit
            for (x, y), limit in zip(pts, pair.outer, strict=True)
        )
        for s in ARM_BASE_XY
    )


def goal_pair_reachable(task: Task, index: int, fmap: FrameMap) -> bool | None:
    """Whether one arm reaches both ends of goal relation ``index`` under ``fmap`` (the
    mover's table region and its place, :data:`REACH_MARGIN` inside the reach annulus, a
    high end :data:`HIGH_REACH` nearer); None when an end has no table region to measure."""
    pair = _pair(task, index)
    return None if pair is None else _reachable(pair, fmap)


def _table_centres(task: Task) -> dict[str, tuple[float, float]]:
    """Region full name -> its centre (LIBERO frame) for every table region ``:init`` uses."""
    out: dict[str, tuple[float, float]] = {}
    for rel in task.init:
        if rel.kind != "region" or rel.place in out:
            continue
        r = region_rect(task, rel.place)
        if r is not None:
            out[rel.place] = centre(r)
    return out


def _misplaced(x: float, y: float) -> bool:
    """True for a region centre off the table (inside :data:`EDGE_MARGIN`) or on a base."""
    hx, hy = TABLE_HALF_XY
    return (
        abs(x) > hx - EDGE_MARGIN
        or abs(y) > hy - EDGE_MARGIN
        or min(_reach(x, y, s) for s in ARM_BASE_XY) < REACH_MIN
    )


def _onto_table(x: float, y: float) -> tuple[float, float]:
    """The nearest point to (x, y) with the table's :data:`EDGE_MARGIN` kept and
    :data:`REACH_MIN` (+5 mm) from both arms' bases."""
    hx, hy = TABLE_HALF_XY
    x = min(max(x, -(hx - EDGE_MARGIN)), hx - EDGE_MARGIN)
    y = min(max(y, -(hy - EDGE_MARGIN)), hy - EDGE_MARGIN)
    for bx, by in ARM_BASE_XY.values():
        d = math.hypot(x - bx, y - by)
        if d < REACH_MIN:
            ux, uy = ((x - bx) / d, (y - by) / d) if d > 1e-9 else (-math.copysign(1.0, bx), 0.0)
            x, y = bx + ux * (REACH_MIN + 0.005), by + uy * (REACH_MIN + 0.005)
    return x, y


def _with_moves(task: Task, fmap: FrameMap) -> FrameMap:
    """``fmap`` with each misplaced table region moved onto the table (module docstring)."""
    moved = []
    for name, c in _table_centres(task).items():
        x, y = fmap.point(*c)
        if _misplaced(x, y):
            nx, ny = _onto_table(x, y)
            moved.append((name, round(nx - x, 4), round(ny - y, 4)))
    return FrameMap(fmap.scale, fmap.shift, tuple(moved)) if moved else fmap


def _shifts() -> list[tuple[float, float]]:
    """The shift grid [m], nearest the origin first."""
    nx, ny = round(SHIFT_X / SHIFT_STEP), round(SHIFT_Y / SHIFT_STEP)
    grid = [
        (i * SHIFT_STEP, j * SHIFT_STEP) for i in range(-nx, nx + 1) for j in range(-ny, ny + 1)
    ]
    grid.sort(key=lambda s: (round(math.hypot(*s), 6), s))
    return [(round(sx, 3), round(sy, 3)) for sx, sy in grid]


_SHIFTS = _shifts()


def choose_map(task: Task) -> FrameMap:
    """The task's frame map (module docstring): the first scale of :data:`SCALES` and the
    shift nearest the origin with every goal pair reachable and no region off the table;
    when none has, the best found (most pairs, fewest bad regions), its bad regions moved."""
    pairs = [p for i in range(len(task.goal)) if (p := _pair(task, i)) is not None]
    centres = list(_table_centres(task).values())
    hx, hy = TABLE_HALF_XY[0] - EDGE_MARGIN, TABLE_HALF_XY[1] - EDGE_MARGIN
    bases = list(ARM_BASE_XY.values())
    near2, base2 = (REACH_MIN + REACH_MARGIN) ** 2, REACH_MIN**2
    best: tuple[tuple[int, int, float], FrameMap] | None = None
    for scale in SCALES:
        # rsb (x, y) = (scale * y_L + sx, -scale * x_L + sy): the scaled parts, once per scale
        spots = [(scale * y, -scale * x) for x, y in centres]
        ends = [
            ([(scale * y, -scale * x) for x, y in p.ends], [o * o for o in p.outer]) for p in pairs
        ]
        for sx, sy in _SHIFTS:
            reached = 0
            for pts, outer2 in ends:
                for bx, by in bases:
                    if all(
                        near2 <= (px + sx - bx) ** 2 + (py + sy - by) ** 2 <= far2
                        for (px, py), far2 in zip(pts, outer2, strict=True)
                    ):
                        reached += 1
                        break
            if best is not None and reached < best[0][0]:
                continue  # fewer pairs than the best so far: not better, whatever its regions
            bad = 0
            for px, py in spots:
                x, y = px + sx, py + sy
                if (
                    abs(x) > hx
                    or abs(y) > hy
                    or any((x - bx) ** 2 + (y - by) ** 2 < base2 for bx, by in bases)
                ):
                    bad += 1
            if reached == len(task.goal) and bad == 0:
                return FrameMap(scale, (sx, sy))
            key = (reached, -bad, -math.hypot(sx, sy))
            if best is None or key > best[0]:
                best = (key, FrameMap(scale, (sx, sy)))
    assert best is not None
    return _with_moves(task, best[1])
