"""Trial layouts: the layout sampler's rules run in pure Python on a task's placement plans
(:mod:`rsb_mj.lang.rules.runtime_plans`), candidates first, then the static distractors
around them, with a fixed seed so lint results never vary from run to run.

RSB503 (:mod:`rsb_mj.lang.rules.runtime_layout`) reads :func:`layout_trials` and
:func:`distractor_trials`. Lengths are metres in the table frame.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rsb_mj.lang import ast
from rsb_mj.lang.placement import distractor_names
from rsb_mj.lang.rules.base import Context
from rsb_mj.lang.rules.runtime_plans import Plan, Rect4, candidate_plans, distractor_plans
from rsb_mj.workspace import (
    ANSWER_ZONE_MARGIN,
    DISTRACTOR_ZONE_MARGIN,
    FOOTPRINT_CLEARANCE,
    TABLE_HALF_XY,
    reachable,
    rect_reachable,
)

if TYPE_CHECKING:
    import random

__all__ = [
    "TRIAL_LAYOUTS",
    "TRIAL_NEEDED",
    "TRIAL_SEED",
    "TRIAL_TRIES",
    "distractor_trials",
    "layout_trials",
]

#: Trial layouts the impossible-layout rule draws, proposals per candidate in each (the
#: sampler's own budget), and how many must succeed. The sampler itself makes up to 64
#: passes per episode, so a task that lints clean fails an episode with probability below
#: (1 - 2/16) ** 64, about 2e-4, and in practice far less.
TRIAL_LAYOUTS = 16
TRIAL_TRIES = 512
TRIAL_NEEDED = 2
#: Seed of the trial layouts (lint results never vary from run to run).
TRIAL_SEED = 0


def _zone_rects(problem: ast.Problem) -> list[Rect4]:
    """Every rectangle of the answer-zone regions (``problem.answer_zone_regions``, as the
    scene draws them)."""
    return [
        (r.x0, r.y0, r.x1, r.y1) for region in problem.answer_zone_regions for r in region.ranges
    ]


def _trial(
    plans: list[Plan], zone: list[Rect4], spacing: float, rng: random.Random, tries: int
) -> list[tuple[float, float, float]] | None:
    """One sequential pass of the layout sampler's rules (pure Python): the (x, y, radius)
    of every candidate [m] when each found a spot within ``tries`` proposals, else None."""
    return _sequential_pass(
        plans, zone, rng, tries, margin=ANSWER_ZONE_MARGIN, spacing=spacing, reach=True
    )


def _distractor_trial(
    plans: list[Plan],
    zone: list[Rect4],
    candidates: list[tuple[float, float, float]],
    rng: random.Random,
    tries: int,
) -> bool:
    """One pass of the distractor sampler's rules around placed ``candidates`` (x, y, radius
    [m]): each center inside its inset region (reach is not needed), its footprint
    ``DISTRACTOR_ZONE_MARGIN`` clear of the answer zone, its plan's gap clear of every
    candidate footprint and ``FOOTPRINT_CLEARANCE`` clear of the distractors placed before."""
    placed = _sequential_pass(
        plans, zone, rng, tries, margin=DISTRACTOR_ZONE_MARGIN, fixed=candidates, reach=False
    )
    return placed is not None


def _sequential_pass(
    plans: list[Plan],
    zone: list[Rect4],
    rng: random.Random,
    tries: int,
    *,
    margin: float,
    spacing: float = 0.0,
    fixed: Sequence[tuple[float, float, float]] = (),
    reach: bool,
) -> list[tuple[float, float, float]] | None:
    """Places ``plans`` one after the other, as the samplers do: each center drawn uniformly
    over its rectangles (weighted by area) until, within ``tries`` proposals, its footprint
    is its plan's gap clear of the ``fixed`` footprints (x, y, radius [m]), ``spacing`` and
    ``FOOTPRINT_CLEARANCE`` clear of those placed before, reachable (with ``reach``) and
    ``margin`` clear of the answer zone. Returns the placed (x, y, radius), or None when a
    plan found no spot."""
    placed: list[tuple[float, float, float]] = []
    uniform = rng.random
    for plan in plans:
        rects, radius = plan.rects, plan.radius
        areas = [max((x1 - x0) * (y1 - y0), 1e-12) for x0, y0, x1, y1 in rects]
        cumulative = list(itertools.accumulate(areas))
        keep_off = radius + margin
        need = [(px, py, (pr + plan.gap + radius) ** 2) for px, py, pr in fixed]
        need += [
            (px, py, max(spacing, pr + radius + FOOTPRINT_CLEARANCE) ** 2) for px, py, pr in placed
        ]
        for _ in range(tries):
            x0, y0, x1, y1 = (
                rects[0] if len(rects) == 1 else rng.choices(rects, cum_weights=cumulative)[0]
            )
            x, y = x0 + uniform() * (x1 - x0), y0 + uniform() * (y1 - y0)
            if any((x - px) ** 2 + (y - py) ** 2 < d2 for px, py, d2 in need):
                continue
            if reach and not reachable(x, y):
                continue
            if any(_rect_distance(x, y, z) < keep_off for z in zone):
                continue
            placed.append((x, y, radius))
            break
        else:
            return None
    return placed


def _rect_distance(x: float, y: float, rect: Rect4) -> float:
    x0, y0, x1, y1 = rect
    return math.hypot(max(x0 - x, x - x1, 0.0), max(y0 - y, y - y1, 0.0))


def _trial_setup(ctx: Context) -> tuple[list[Plan], list[Rect4], float] | None:
    """(candidate plans, answer-zone rectangles, min spacing [m]) for trial layouts, or None
    when the plan cannot be made (other rules report why)."""
    plans = candidate_plans(ctx)
    if not plans or any(not any(rect_reachable(*r) for r in p.rects) for p in plans):
        return None  # RSB501, RSB502
    layout = ctx.problem.layout
    spacing = layout.min_spacing if layout and layout.min_spacing is not None else 0.0
    hx, hy = TABLE_HALF_XY
    on_table = all(
        -hx <= x0 and x1 <= hx and -hy <= y0 and y1 <= hy
        for p in plans
        for x0, y0, x1, y1 in p.rects
    )
    if not (on_table and 0.0 <= spacing < 1.0):
        return None  # RSB302, RSB309
    return plans, _zone_rects(ctx.problem), spacing


def layout_trials(ctx: Context) -> tuple[int, int] | None:
    """(successes, trials) of the trial layouts of ``ctx``'s candidates, or None when the
    plan cannot be made (other rules report why). Stops once :data:`TRIAL_NEEDED` passes
    succeeded."""
    setup = _trial_setup(ctx)
    if setup is None:
        return None
    plans, zone, spacing = setup
    import random  # (rsb scenes only: LIBERO files do not pay for it)

    rng = random.Random(TRIAL_SEED)
    successes = trials = 0
    while trials < TRIAL_LAYOUTS and successes < TRIAL_NEEDED:
        trials += 1
        successes += _trial(plans, zone, spacing, rng, TRIAL_TRIES) is not None
    return successes, trials


def distractor_trials(ctx: Context) -> tuple[int, int] | None:
    """(successes, trials) of trial layouts of ``ctx``'s static distractors, each around a
    trial layout of the candidates (trials whose candidates find no layout count as
    failures), or None when the task has none or a plan cannot be made. Stops once
    :data:`TRIAL_NEEDED` passes succeeded."""
    setup = _trial_setup(ctx)
    extra = distractor_plans(ctx)
    if setup is None or not extra or len(extra) != len(distractor_names(ctx.problem)):
        return None  # no distractors, or RSB2xx / RSB507 report an unplaced one
    if any(not p.rects for p in extra):
        return None  # RSB501
    plans, zone, spacing = setup
    import random  # (rsb scenes only: LIBERO files do not pay for it)

    rng = random.Random(TRIAL_SEED)
    successes = trials = 0
    while trials < TRIAL_LAYOUTS and successes < TRIAL_NEEDED:
        trials += 1
        placed = _trial(plans, zone, spacing, rng, TRIAL_TRIES)
        if placed is not None:
            successes += _distractor_trial(extra, zone, placed, rng, TRIAL_TRIES)
    return successes, trials
