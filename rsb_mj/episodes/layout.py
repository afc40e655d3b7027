"""Candidate layout sampling: where each candidate stands on the table at reset.

Pure Python + numpy (no MuJoCo), so the episode sampler can call it cheaply.

Rules (all in the table frame, metres): each candidate's center is drawn uniformly inside its
``:init (On obj REGION)`` region's ``:ranges`` (a rectangle picked with probability
proportional to its area), inset by the object's footprint radius so the whole footprint is
inside; its footprint disc keeps ``ANSWER_ZONE_MARGIN`` away from every answer-zone rectangle;
its center lies within ``[REACH_MIN, REACH_MAX]`` of the waist axis of the arm on its side
(``x >= 0``: right arm); and any two centers are at least
``max(min_spacing, r_i + r_j + FOOTPRINT_CLEARANCE)`` apart, where ``min_spacing`` is the
task's ``(:layout (:min_spacing D))`` read as a center-to-center distance. Yaw is uniform in
``(:layout (:yaw_range (LO HI)))`` (0 when absent).

Sampling is sequential with vectorized batches and bounded restarts: it either returns or
raises :class:`~rsb_mj.errors.SceneError`, never hangs. Same generator state, same layout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rsb_mj.episodes.episode import Pose2D
from rsb_mj.errors import SceneError
from rsb_mj.lang.ast import Problem, Region
from rsb_mj.lang.placement import cost_objects, distractor_names
from rsb_mj.workspace import (
    ANSWER_ZONE_MARGIN,
    ARM_BASE_XY,
    DISTRACTOR_CLEARANCE,
    DISTRACTOR_ZONE_MARGIN,
    FOOTPRINT_CLEARANCE,
    HAZARD_CLEARANCE,
    REACH_MAX,
    REACH_MIN,
    side_of,
)

#: Proposals drawn at once per candidate, proposals per candidate, and full restarts.
BATCH = 64
TRIES_PER_CANDIDATE = 512
RESTARTS = 64

Rect4 = tuple[float, float, float, float]


def footprint_radius(category: str) -> float:
    """Footprint radius [m] of ``category`` (from the task-language vocabulary)."""
    from rsb_mj.lang.categories import footprint_radius as vocab_radius

    return float(vocab_radius(category))


def _rects(region: Region) -> list[Rect4]:
    return [(r.x0, r.y0, r.x1, r.y1) for r in region.ranges]


def answer_zone_rects(problem: Problem) -> list[Rect4]:
    """Rectangles [m] of the answer-zone regions of ``problem`` (its ``(:answer_zone ...)``,
    see :attr:`rsb_mj.lang.ast.Problem.answer_zone_regions`)."""
    out: list[Rect4] = []
    for region in problem.answer_zone_regions:
        out.extend(_rects(region))
    return out


def _disc_rect_distance(x: np.ndarray, y: np.ndarray, rect: Rect4) -> np.ndarray:
    """Distance [m] from points (x, y) to an axis-aligned rectangle (0 inside)."""
    x0, y0, x1, y1 = rect
    dx = np.maximum(np.maximum(x0 - x, x - x1), 0.0)
    dy = np.maximum(np.maximum(y0 - y, y - y1), 0.0)
    return np.hypot(dx, dy)


def _reachable(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    ok = np.zeros(x.shape, dtype=bool)
    for side, (bx, by) in ARM_BASE_XY.items():
        on_side = (x >= 0.0) if side == "right" else (x < 0.0)
        dist = np.hypot(x - bx, y - by)
        ok |= on_side & (dist >= REACH_MIN) & (dist <= REACH_MAX)
    return ok


def _inset(rects: Sequence[Rect4], radius: float) -> list[Rect4]:
    out = []
    for x0, y0, x1, y1 in rects:
        lo_x, hi_x = min(x0, x1) + radius, max(x0, x1) - radius
        lo_y, hi_y = min(y0, y1) + radius, max(y0, y1) - radius
        if hi_x >= lo_x and hi_y >= lo_y:
            out.append((lo_x, lo_y, hi_x, hi_y))
    return out


def _plan(problem: Problem, name: str) -> tuple[float, str, list[Rect4], np.ndarray]:
    """Where ``name`` may stand: its footprint radius [m], its region's name, the region's
    rectangles inset by the radius (table frame, m) and each one's probability (by area).

    Raises:
        SceneError: when the region is smaller than the footprint.
    """
    radius = footprint_radius(problem.category_of(name))
    region_name = problem.placement_of(name)
    rects = _inset(_rects(problem.region(region_name)), radius)
    if not rects:
        raise SceneError(
            f"{problem.path}: region {region_name!r} is smaller than the footprint of "
            f"{name!r} (radius {radius:.3f} m)"
        )
    areas = np.array([max((x1 - x0) * (y1 - y0), 1e-12) for x0, y0, x1, y1 in rects])
    return radius, region_name, rects, areas / areas.sum()


def sample_layout(problem: Problem, rng: np.random.Generator) -> dict[str, Pose2D]:
    """Draw one layout of ``problem``'s candidates.

    Args:
        problem: a :class:`rsb_mj.lang.Problem` (candidates, regions, ``:init`` placements,
            categories and ``:layout``).
        rng: the episode's generator; every draw comes from it.

    Returns:
        candidate name -> :class:`~rsb_mj.episodes.episode.Pose2D` (table frame, metres,
        radians), in ``problem.candidates`` order.

    Raises:
        SceneError: when a candidate's region cannot hold it, or no layout satisfying the
            rules was found within the bounded number of tries.
    """
    names = tuple(problem.candidates)
    path = problem.path
    block = problem.layout
    min_spacing = float(block.min_spacing or 0.0) if block is not None else 0.0
    yaw_range = (block.yaw_range if block is not None else None) or (0.0, 0.0)
    zone = answer_zone_rects(problem)
    plans = []
    for name in names:
        plans.append((name, *_plan(problem, name)))
    for _ in range(RESTARTS):
        placed = _try_once(plans, zone, min_spacing, yaw_range, rng)
        if placed is not None:
            return placed
    raise SceneError(
        f"{path}: could not place {len(names)} candidates after {RESTARTS} attempts "
        f"(min_spacing {min_spacing} m, regions "
        f"{sorted({p[2] for p in plans})}); enlarge the regions or lower :min_spacing"
    )


def _try_once(
    plans: list,
    zone: list[Rect4],
    min_spacing: float,
    yaw_range: tuple[float, float],
    rng: np.random.Generator,
) -> dict[str, Pose2D] | None:
    """One sequential pass; None when some candidate found no valid spot."""
    xs: list[float] = []
    ys: list[float] = []
    radii: list[float] = []
    out: dict[str, Pose2D] = {}
    for name, radius, _region, rects, weights in plans:
        found = False
        for _ in range(TRIES_PER_CANDIDATE // BATCH):
            which = rng.choice(len(rects), size=BATCH, p=weights)
            box = np.asarray(rects)[which]
            x = box[:, 0] + rng.random(BATCH) * (box[:, 2] - box[:, 0])
            y = box[:, 1] + rng.random(BATCH) * (box[:, 3] - box[:, 1])
            ok = _reachable(x, y)
            for rect in zone:
                ok &= _disc_rect_distance(x, y, rect) >= radius + ANSWER_ZONE_MARGIN
            if xs:
                px, py, pr = np.asarray(xs), np.asarray(ys), np.asarray(radii)
                need = np.maximum(min_spacing, pr + radius + FOOTPRINT_CLEARANCE)
                dist = np.hypot(x[:, None] - px[None, :], y[:, None] - py[None, :])
                ok &= np.all(dist >= need[None, :], axis=1)
            hits = np.flatnonzero(ok)
            if hits.size:
                i = int(hits[0])
                yaw = float(yaw_range[0] + rng.random() * (yaw_range[1] - yaw_range[0]))
                out[name] = Pose2D(float(x[i]), float(y[i]), yaw)
                xs.append(float(x[i]))
                ys.append(float(y[i]))
                radii.append(radius)
                found = True
                break
        if not found:
            return None
    return out


def arm_for(pose: Pose2D) -> str:
    """The arm (``"left"``/``"right"``) on the side of ``pose``."""
    return side_of(pose.x)


def sample_distractors(
    problem: Problem, rng: np.random.Generator, placed: dict[str, Pose2D]
) -> dict[str, Pose2D]:
    """Draw the poses of ``problem``'s non-candidate objects around placed candidates.

    Each distractor's center is drawn uniformly inside its ``:init (On obj REGION)`` region
    (inset by its footprint radius, a rectangle picked by area); its footprint keeps
    :data:`DISTRACTOR_ZONE_MARGIN` from the answer zone, :data:`DISTRACTOR_CLEARANCE` from
    every candidate footprint in ``placed`` (a hazard, an object the ``:cost`` names:
    :data:`HAZARD_CLEARANCE`) and :data:`FOOTPRINT_CLEARANCE` from the other distractors. Reach
    is not required (nothing needs to pick them). Only the distractors are redrawn on a
    restart, so the candidates keep ``placed``.

    Args:
        problem: the parsed task.
        rng: the episode's generator, after the candidates' layout was drawn from it.
        placed: the candidates' layout (:func:`sample_layout`).

    Returns:
        distractor name -> pose (table frame, metres, radians), in declaration order; empty
        when the task has no non-candidate objects (and then nothing is drawn from ``rng``).

    Raises:
        SceneError: when a region cannot hold its distractor, or no placement was found
            within the bounded number of tries.
    """
    names = distractor_names(problem)
    if not names:
        return {}
    yaw_range = (-np.pi, np.pi)
    zone = answer_zone_rects(problem)
    hazards = set(cost_objects(problem))
    plans = []
    for name in names:
        gap = HAZARD_CLEARANCE if name in hazards else DISTRACTOR_CLEARANCE
        plans.append((name, *_plan(problem, name), gap))
    fixed = [(p.x, p.y, footprint_radius(problem.category_of(n))) for n, p in placed.items()]
    for _ in range(RESTARTS):
        out = _place_distractors(plans, zone, fixed, yaw_range, rng)
        if out is not None:
            return out
    raise SceneError(
        f"{problem.path}: could not place the {len(names)} non-candidate objects after "
        f"{RESTARTS} attempts (regions {sorted({p[2] for p in plans})}); enlarge the regions "
        "or declare fewer objects"
    )


def _place_distractors(
    plans: list,
    zone: list[Rect4],
    fixed: list[tuple[float, float, float]],
    yaw_range: tuple[float, float],
    rng: np.random.Generator,
) -> dict[str, Pose2D] | None:
    """One sequential pass over the distractors; None when one found no valid spot.

    ``fixed``: (x, y, footprint radius [m]) of the placed candidates."""
    n_fixed = len(fixed)
    xs = [f[0] for f in fixed]
    ys = [f[1] for f in fixed]
    keep = [f[2] for f in fixed]
    out: dict[str, Pose2D] = {}
    for name, radius, _region, rects, weights, gap in plans:
        found = False
        for _ in range(TRIES_PER_CANDIDATE // BATCH):
            which = rng.choice(len(rects), size=BATCH, p=weights)
            box = np.asarray(rects)[which]
            x = box[:, 0] + rng.random(BATCH) * (box[:, 2] - box[:, 0])
            y = box[:, 1] + rng.random(BATCH) * (box[:, 3] - box[:, 1])
            ok = np.ones(BATCH, dtype=bool)
            for rect in zone:
                ok &= _disc_rect_distance(x, y, rect) >= radius + DISTRACTOR_ZONE_MARGIN
            if xs:
                px, py, pk = np.asarray(xs), np.asarray(ys), np.asarray(keep)
                pk = pk + np.where(np.arange(len(pk)) < n_fixed, gap, 0.0)
                dist = np.hypot(x[:, None] - px[None, :], y[:, None] - py[None, :])
                ok &= np.all(dist >= (pk + radius)[None, :], axis=1)
            hits = np.flatnonzero(ok)
            if hits.size:
                i = int(hits[0])
                yaw = float(yaw_range[0] + rng.random() * (yaw_range[1] - yaw_range[0]))
                out[name] = Pose2D(float(x[i]), float(y[i]), yaw)
                xs.append(float(x[i]))
                ys.append(float(y[i]))
                keep.append(radius + FOOTPRINT_CLEARANCE)
                found = True
                break
        if not found:
            return None
    return out
