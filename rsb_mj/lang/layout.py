"""Candidate layout sampling: where each candidate stands on the table at reset.

Pure Python + numpy (no MuJoCo), so the episode sampler draws with it cheaply and the
linter runs its trials (RSB503): it reads a parsed task's regions and the table's geometry
(:mod:`rsb_mj.workspace`) only, and returns :class:`Pose2D` values.

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

The linter's RSB503 runs these same passes (:func:`layout_trials`,
:func:`distractor_trials`): :data:`TRIAL_LAYOUTS` single passes from a fixed seed, of which
:data:`TRIAL_NEEDED` must succeed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.lang.ast import Problem, Region
from rsb_mj.lang.categories import footprint_radius as vocab_radius
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

#: Trial layouts the linter's impossible-layout rule (RSB503) draws, each one pass of the
#: sampler, and how many must succeed. The sampler itself makes up to 64 passes per episode,
#: so a task that lints clean fails an episode with probability below (1 - 2/16) ** 64,
#: about 2e-4, and in practice far less.
TRIAL_LAYOUTS = 16
TRIAL_NEEDED = 2
#: Seed of the trial layouts (lint results never vary from run to run).
TRIAL_SEED = 0


@dataclass(frozen=True)
class Pose2D:
    """A candidate's placement on the table: x, y in metres (table frame), yaw in radians."""

    x: float
    y: float
    yaw: float


def footprint_radius(category: str) -> float:
    """Footprint radius [m] of ``category`` (from the task-language vocabulary)."""
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


def inset(rects: Sequence[Rect4], radius: float) -> list[Rect4]:
    """The rectangles [m] shrunk by ``radius`` [m] on every side (the area a center of a
    footprint of that radius may take); the ones that vanish are dropped."""
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
    rects = inset(_rects(problem.region(region_name)), radius)
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
        candidate name -> :class:`~rsb_mj.lang.layout.Pose2D` (table frame, metres,
        radians), in ``problem.candidates`` order.

    Raises:
        SceneError: when a candidate's region cannot hold it, or no layout satisfying the
            rules was found within the bounded number of tries.
    """
    names = tuple(problem.candidates)
    path = problem.path
    plans, zone, min_spacing, yaw_range = _candidate_setup(problem)
    for _ in range(RESTARTS):
        placed = _try_once(plans, zone, min_spacing, yaw_range, rng)
        if placed is not None:
            return placed
    raise SceneError(
        f"{path}: could not place {len(names)} candidates after {RESTARTS} attempts "
        f"(min_spacing {min_spacing} m, regions "
        f"{sorted({p[2] for p in plans})}); enlarge the regions or lower :min_spacing"
    )


def _candidate_setup(problem: Problem) -> tuple[list, list[Rect4], float, tuple[float, float]]:
    """(plans, answer-zone rectangles, min spacing [m], yaw range [rad]) of the candidates."""
    block = problem.layout
    min_spacing = float(block.min_spacing or 0.0) if block is not None else 0.0
    yaw_range = (block.yaw_range if block is not None else None) or (0.0, 0.0)
    plans = [(name, *_plan(problem, name)) for name in problem.candidates]
    return plans, answer_zone_rects(problem), min_spacing, yaw_range


def layout_trials(problem: Problem) -> tuple[int, int]:
    """(successes, trials) of single passes of :func:`sample_layout` from
    ``default_rng(TRIAL_SEED)``; stops once :data:`TRIAL_NEEDED` passes succeeded.

    Raises:
        SceneError: when a candidate's region cannot hold it (the linter checks first).
    """
    plans, zone, min_spacing, yaw_range = _candidate_setup(problem)
    rng = np.random.default_rng(TRIAL_SEED)
    successes = trials = 0
    while trials < TRIAL_LAYOUTS and successes < TRIAL_NEEDED:
        trials += 1
        successes += _try_once(plans, zone, min_spacing, yaw_range, rng) is not None
    return successes, trials


def distractor_trials(problem: Problem) -> tuple[int, int] | None:
    """(successes, trials) of single passes of :func:`sample_distractors`, each around a
    single pass of :func:`sample_layout` from one ``default_rng(TRIAL_SEED)`` (a trial whose
    candidates find no layout fails); stops once :data:`TRIAL_NEEDED` passes succeeded.
    None when the task has no distractors.

    Raises:
        SceneError: when a region cannot hold its object (the linter checks first).
    """
    if not distractor_names(problem):
        return None
    plans, zone, min_spacing, yaw_range = _candidate_setup(problem)
    extra = _distractor_plans(problem)
    rng = np.random.default_rng(TRIAL_SEED)
    successes = trials = 0
    while trials < TRIAL_LAYOUTS and successes < TRIAL_NEEDED:
        trials += 1
        placed = _try_once(plans, zone, min_spacing, yaw_range, rng)
        if placed is not None:
            fixed = _fixed(problem, placed)
            successes += _place_distractors(extra, zone, fixed, DISTRACTOR_YAW, rng) is not None
    return successes, trials


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
    zone = answer_zone_rects(problem)
    plans = _distractor_plans(problem)
    fixed = _fixed(problem, placed)
    for _ in range(RESTARTS):
        out = _place_distractors(plans, zone, fixed, DISTRACTOR_YAW, rng)
        if out is not None:
            return out
    raise SceneError(
        f"{problem.path}: could not place the {len(names)} non-candidate objects after "
        f"{RESTARTS} attempts (regions {sorted({p[2] for p in plans})}); enlarge the regions "
        "or declare fewer objects"
    )


#: Yaw range of the distractors [rad].
DISTRACTOR_YAW = (-np.pi, np.pi)


def _distractor_plans(problem: Problem) -> list:
    """Per distractor, its plan (see :func:`_plan`) and its clearance to the candidates [m]."""
    hazards = set(cost_objects(problem))
    return [
        (name, *_plan(problem, name), HAZARD_CLEARANCE if name in hazards else DISTRACTOR_CLEARANCE)
        for name in distractor_names(problem)
    ]


def _fixed(problem: Problem, placed: dict[str, Pose2D]) -> list[tuple[float, float, float]]:
    """(x, y, footprint radius [m]) of each placed candidate."""
    return [(p.x, p.y, footprint_radius(problem.category_of(n))) for n, p in placed.items()]


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
