"""The head camera of a goal scene: one rule that frames the objects and fixtures of the task.

Question scenes keep the fixed head camera of :mod:`rsb_mj.scene.aloha` (``HEAD_EYE``,
``HEAD_TARGET``, ``HEAD_FOVY``). A LIBERO / VLA-Arena layout spreads over the whole table
(objects from x = -0.57 to 0.53 m, y = -0.35 to 0.36 m), wider than that image, so a goal
scene's head camera is posed per task by one rule (:func:`frame_task`):

* its orientation is fixed: it looks away from the robot's side of the table (+y), tilted
  :data:`GOAL_HEAD_TILT_DEG` from vertical (steeper than the question head's 20 deg, so it
  sees past the arms' upper links; measured in docs/goal_tasks.md), image x along world +x;
* its vertical field of view is :data:`GOAL_HEAD_FOVY` [deg];
* its position is the nearest (along its view axis) from which every corner of the task's
  **frame box** projects inside a square image, :data:`GOAL_HEAD_MARGIN` of the half-width
  in from each edge: a 224x224 render (or any square) holds the whole box, a 4:3 one (the
  same vertical field of view, wider) too;
* the frame box (:func:`frame_task`) is the box of the objects and fixtures the task names
  (:func:`rsb_mj.lang.named_objects.named_objects`), grown by each other object's or fixture's
  box, nearest first, while the eye stays within :data:`GOAL_HEAD_WIDEN` times its distance
  to the named box: the named objects keep most of the image, the others are in view where
  the layout allows; in a tier B scene the widening also stops before a named object's
  estimated pixels (:func:`seen_pixels`) fall below :data:`GOAL_HEAD_KEEP_PX` (rule 1's
  threshold), so the others never cost rule 1 a small named object (tier A and C scenes
  pass no such object to the widening);
* **the tight framing** (issue 44): where that pose leaves a small named object's estimate
  below :data:`GOAL_HEAD_KEEP_PX` (a tier B scene: its footprint, as the widening; a tier A
  or C scene: its footprint and its side, :class:`Kept`), the pose is instead fitted to the
  corners of each named box (:func:`frame_points`) rather than of their union's box (a tall
  cabinet at one end of the table and a flat board at the other no longer make one tall box
  over the whole span), and widened over the others only while every small named object
  keeps its estimate (where a named object's drawn places then leave the image, the scene
  joins them to its box and frames again: ``GoalLayout._frame_head``, :func:`holds`).
  Measured over the 300 LIBERO and VLA-Arena files (docs/goal_tasks.md): only VLA-Arena
  files whose tomato, cake, peach or strawberry rule 1 left short take it; every other
  file's camera is that of before, bit for bit.

What no framing gives: a 224 px image that holds every named object of a scene whose named
objects span the table (three tomatoes, three bowls and a cutting board from x = -0.58 to
0.42 m in ``generalization_object_preposition_combinations``) shows a 5.2 cm tomato at most
(0.052 / 1.0 * 215 px)^2 * pi / 4, about 100 px, under rule 1's 150: under the tight framing
rule 1 asks such an object 80% of what the camera shows of it unoccluded instead
(:func:`rsb_mj.env.visibility.pixel_floors`; the pose records the framing as
``GoalLayout.tight``).

Each object's box (:meth:`rsb_mj.scene.region_layout.GoalLayout.boxes`) holds every place it can
stand at reset, from the task alone (not the seed, so every episode of a task has the same
camera): a fixture's footprint at its pose up to its top; each object's ``:init`` region
rectangle (every ``:ranges`` rectangle, mapped by the frame map), grown by the object's
footprint radius, up to its top; an object on another object or a fixture site over that
owner's box, up to the owner's top plus its own height; an object without a place over the
scene's free spot. In a tier B scene two things widen these boxes (tier A scenes have
neither, so their camera is that of before, bit for bit):

* a fixture's box also holds its moving parts (visual geoms) over every state the task puts
  them in, from the ``:init`` state drawn (0 without one) to the goal's (an ``Open``:
  LIBERO's open range): an open drawer at its drawn extent, a door at its drawn angle and on
  its arc to shut, with their handles (``GoalLayout.part_ranges``);
* where the layout is not the file's (a fixture moved by the placement rule of
  :mod:`rsb_mj.scene.fixture_placement`, or a part drawn open), an object's box is that of
  its places in a fixed set of layout draws (``region_layout.FRAME_DRAWS`` from the generator
  of ``FRAME_SEED``, no physics; the ``FRAME_TRIM`` most extreme on each side left out),
  in place of its region's (an object on a table region) or besides its owner's (an object
  on an object or a site): an object whose region the moved cabinet now covers is drawn
  beside it, not in its region.

The pose is recorded in every goal record (``sim.head_camera``), in goal demonstrations and
their LeRobot export (``rsb_episode``'s ``head_camera``) as :meth:`HeadView.as_dict`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "GOAL_HEAD_FOVY",
    "GOAL_HEAD_KEEP_PX",
    "GOAL_HEAD_MARGIN",
    "GOAL_HEAD_SIZE",
    "GOAL_HEAD_TILT_DEG",
    "GOAL_HEAD_WIDEN",
    "Box",
    "HeadView",
    "Kept",
    "frame_box",
    "frame_points",
    "frame_task",
    "holds",
    "seen_pixels",
]

#: Tilt of a goal scene's head camera from looking straight down [deg] (towards +y).
GOAL_HEAD_TILT_DEG = 10.0
#: Vertical (and, in a square image, horizontal) field of view of a goal head camera [deg].
GOAL_HEAD_FOVY = 45.0
#: Share of the image half-width kept free at each edge around the frame box.
GOAL_HEAD_MARGIN = 0.04
#: How much farther [x] than the named objects' own framing the eye may go to take in the
#: task's other objects and fixtures (:func:`frame_task`).
GOAL_HEAD_WIDEN = 1.25
#: Side [px] of the square head image that rule 1 reads
#: (:data:`rsb_mj.env.visibility.SIZE`).
GOAL_HEAD_SIZE = 224
#: Pixels rule 1 asks of a named object (:data:`rsb_mj.env.visibility.MIN_PIXELS`): in a
#: tier B scene the widening of :func:`frame_task` stops before a kept object's estimate
#: (:func:`seen_pixels`) falls below it.
GOAL_HEAD_KEEP_PX = 150


@dataclass(frozen=True)
class Box:
    """An axis-aligned box [m, world]: ``lo`` and ``hi`` corners (x, y, z)."""

    lo: tuple[float, float, float]
    hi: tuple[float, float, float]

    def corners(self) -> np.ndarray:
        """The 8 corners (8, 3) [m, world]."""
        (x0, y0, z0), (x1, y1, z1) = self.lo, self.hi
        return np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)])

    @staticmethod
    def union(boxes: Iterable[Box]) -> Box:
        """The smallest box holding every box of ``boxes`` (at least one).

        Raises:
            ValueError: for no boxes.
        """
        items = list(boxes)
        if not items:
            raise ValueError("Box.union of no boxes")
        lo = tuple(min(b.lo[i] for b in items) for i in range(3))
        hi = tuple(max(b.hi[i] for b in items) for i in range(3))
        return Box(lo, hi)  # type: ignore[arg-type]


@dataclass(frozen=True)
class HeadView:
    """A head camera pose: ``pos`` the eye [m, world], ``xyaxes`` MuJoCo's camera x and y axes
    (world frame, unit), ``fovy`` the vertical field of view [deg]."""

    pos: tuple[float, float, float]
    xyaxes: tuple[float, float, float, float, float, float]
    fovy: float

    def as_dict(self) -> dict[str, object]:
        """``{"pos", "xyaxes", "fovy"}``, rounded to 1e-6, no ``-0.0`` (what records carry)."""
        return {
            "pos": [round(v, 6) + 0.0 for v in self.pos],
            "xyaxes": [round(v, 6) + 0.0 for v in self.xyaxes],
            "fovy": round(self.fovy, 6),
        }


def _axes(tilt_deg: float) -> np.ndarray:
    """Rows: camera x (image right), y (image up) and z (backwards) in the world frame."""
    t = math.radians(tilt_deg)
    forward = np.array([0.0, math.sin(t), -math.cos(t)])
    right = np.array([1.0, 0.0, 0.0])
    up = np.cross(right, forward)
    return np.stack([right, up, -forward])


def _fit_axis(u: np.ndarray, depth: np.ndarray, t: float) -> tuple[float, float]:
    """The eye's camera-frame coordinate ``c`` along one image axis and the least eye
    ``depth`` coordinate ``e`` such that ``|u_i - c| <= t (e - depth_i)`` for every point:
    ``e(c) = max_i depth_i + |u_i - c| / t`` is convex, minimised at a breakpoint or a
    crossing of an increasing and a decreasing line."""
    cands = set(u.tolist())
    for i in range(len(u)):
        for j in range(len(u)):
            # depth_i + (c - u_i) / t = depth_j + (u_j - c) / t
            cands.add(float((depth[j] - depth[i]) * t / 2 + (u[i] + u[j]) / 2))
    best = min(cands, key=lambda c: float(np.max(depth + np.abs(u - c) / t)))
    return best, float(np.max(depth + np.abs(u - best) / t))


def frame_box(
    box: Box,
    *,
    tilt_deg: float = GOAL_HEAD_TILT_DEG,
    fovy: float = GOAL_HEAD_FOVY,
    margin: float = GOAL_HEAD_MARGIN,
) -> HeadView:
    """The nearest head pose of the module's rule that holds ``box`` in a square image.

    Raises:
        ValueError: for a field of view outside (0, 180) degrees or a margin outside [0, 1).
    """
    return frame_points(box.corners(), tilt_deg=tilt_deg, fovy=fovy, margin=margin)


def frame_points(
    points: np.ndarray,
    *,
    tilt_deg: float = GOAL_HEAD_TILT_DEG,
    fovy: float = GOAL_HEAD_FOVY,
    margin: float = GOAL_HEAD_MARGIN,
) -> HeadView:
    """The nearest head pose of the module's rule that holds every point of ``points``
    ((n, 3) [m, world]) in a square image (:func:`frame_box` over a box's 8 corners).

    Raises:
        ValueError: for a field of view outside (0, 180) degrees or a margin outside [0, 1).
    """
    if not 0.0 < fovy < 180.0 or not 0.0 <= margin < 1.0:
        raise ValueError(f"fovy {fovy} must be in (0, 180) deg and margin {margin} in [0, 1)")
    axes = _axes(tilt_deg)
    pts = np.asarray(points, dtype=float) @ axes.T  # camera-frame coordinates
    t = math.tan(math.radians(fovy) / 2) * (1.0 - margin)
    cx, ex = _fit_axis(pts[:, 0], pts[:, 2], t)
    cy, ey = _fit_axis(pts[:, 1], pts[:, 2], t)
    eye = axes.T @ np.array([cx, cy, max(ex, ey)])
    return HeadView(
        tuple(float(v) for v in eye),  # type: ignore[arg-type]
        tuple(float(v) for v in (*axes[0], *axes[1])),  # type: ignore[arg-type]
        float(fovy),
    )


@dataclass(frozen=True)
class Kept:
    """A named object whose pixels :func:`frame_task` keeps: ``box`` every place it can
    stand [m, world], ``area`` its footprint seen from above [m^2], ``side`` its side seen
    from beside [m^2] (0: the footprint alone, the tier B widening's estimate)."""

    box: Box
    area: float
    side: float = 0.0


def seen_pixels(view: HeadView, kept: Kept, size: int = GOAL_HEAD_SIZE) -> float:
    """Estimated pixels of ``kept`` in a ``size`` x ``size`` image of ``view``: its footprint
    ``area``, plus its ``side`` times the sine of the angle from vertical of the ray from
    the eye to its box's centre (its side as the camera sees it), at the depth (along the
    view axis) of its box's farthest corner, unoccluded (the worst of its places; a
    pinhole's scale ``size / 2 / tan(fovy / 2)`` px per metre of lateral size at unit
    depth)."""
    x, y = np.array(view.xyaxes[:3]), np.array(view.xyaxes[3:])
    depth = float(np.max(-((kept.box.corners() - np.array(view.pos)) @ np.cross(x, y))))
    f = size / 2 / math.tan(math.radians(view.fovy) / 2)
    area = kept.area
    if kept.side:
        ray = (np.array(kept.box.lo) + np.array(kept.box.hi)) / 2 - np.array(view.pos)
        area += kept.side * math.sqrt(max(0.0, 1.0 - (ray[2] / np.linalg.norm(ray)) ** 2))
    return area * (f / depth) ** 2


def holds(view: HeadView, box: Box, margin: float = GOAL_HEAD_MARGIN) -> bool:
    """Whether every corner of ``box`` projects inside the square image of ``view``,
    ``margin`` of the half-width in from each edge, in front of the eye."""
    x, y = np.array(view.xyaxes[:3]), np.array(view.xyaxes[3:])
    rel = box.corners() - np.array(view.pos)
    depth = -(rel @ np.cross(x, y))
    if np.any(depth <= 0.0):
        return False
    t = math.tan(math.radians(view.fovy) / 2) * (1.0 - margin) + 1e-9  # a corner on the edge
    return bool(np.all(np.abs(rel @ x) <= t * depth) and np.all(np.abs(rel @ y) <= t * depth))


def _reach(view: HeadView, box: Box) -> float:
    """Distance [m] from the eye of ``view`` to the centre of ``box``."""
    centre = (np.array(box.lo) + np.array(box.hi)) / 2
    return float(np.linalg.norm(np.array(view.pos) - centre))


def frame_task(
    named: list[Box],
    others: list[Box],
    widen: float = GOAL_HEAD_WIDEN,
    keep: tuple[Kept, ...] = (),
    guard: tuple[Kept, ...] = (),
) -> HeadView:
    """The head pose of a task: :func:`frame_box` over the boxes of the objects the task
    names (``named``; every box when none is named), then over each other object's or
    fixture's box too, nearest first, while the eye stays within ``widen`` times its distance
    to the named objects' box centre (the named objects keep most of the image; the others
    are in view where the layout allows) and every object of ``keep`` keeps an estimated
    :data:`GOAL_HEAD_KEEP_PX` pixels (:func:`seen_pixels`; a tier B scene passes its named
    objects: the others may not cost rule 1 a small one).

    **The tight framing** (for small named objects): where that pose leaves an object of
    ``guard`` (every scene passes its named objects) an estimate below
    :data:`GOAL_HEAD_KEEP_PX`, the pose is instead :func:`frame_points` over the corners of
    each named box (not of their union: a tall box at one end of the table and a flat one
    at the other no longer make a tall box over the whole span), widened as above with the
    pixels of every ``guard`` object kept. A pose whose estimates all hold is returned
    unchanged (the cameras of the scenes that did not need it are those of before)."""
    if not named:
        named, others = others, []
    view = _widened(named, others, widen, keep, tight=False)
    if all(seen_pixels(view, kept) >= GOAL_HEAD_KEEP_PX for kept in guard):
        return view
    return _widened(named, others, widen, guard, tight=True)


def _widened(
    named: list[Box], others: list[Box], widen: float, keep: tuple[Kept, ...], *, tight: bool
) -> HeadView:
    """The pose of the ``named`` boxes widened over ``others`` nearest first while the eye
    stays within ``widen`` times its distance to the named boxes' centre and every ``keep``
    object keeps :data:`GOAL_HEAD_KEEP_PX` estimated pixels (:func:`frame_task`): framing
    the corners of the boxes taken, each box's own when ``tight``, else their union's."""
    core = Box.union(named)
    view = frame_points(np.concatenate([b.corners() for b in named])) if tight else frame_box(core)
    limit = widen * _reach(view, core)
    taken: list[Box] = []
    pending = list(others)
    while pending:
        if tight:
            grown = [
                (frame_points(np.concatenate([x.corners() for x in (*named, *taken, b)])), b)
                for b in pending
            ]
        else:
            grown = [(frame_box(Box.union([core, *taken, b])), b) for b in pending]
        k = min(range(len(grown)), key=lambda i: _reach(grown[i][0], core))
        if _reach(grown[k][0], core) > limit:
            break
        if any(seen_pixels(grown[k][0], kept) < GOAL_HEAD_KEEP_PX for kept in keep):
            break
        view, added = grown[k]
        taken.append(added)
        pending.pop(k)
    return view
