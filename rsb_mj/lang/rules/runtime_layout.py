"""RSB501-RSB503: regions and layouts the layout sampler cannot draw.

Each rule reads the placement plans (:mod:`rsb_mj.lang.rules.runtime_plans`) and, for
RSB503, the trial layouts of the layout sampler itself (:func:`rsb_mj.lang.layout.
layout_trials`). Lengths are metres in the table frame. The sampler (and numpy with it) is
imported when an rsb scene is checked, so LIBERO / VLA-Arena files do not pay for it.
"""

from __future__ import annotations

from rsb_mj.lang.placement import distractor_names
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.rules.runtime_plans import candidate_plans, distractor_plans
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN, TABLE_HALF_XY, rect_reachable

__all__ = ["impossible_layout", "region_smaller_than_footprint", "unreachable_region"]


@rule(
    "RSB501",
    "region-smaller-than-footprint",
    "error",
    bad="(candidates (:target table) (:ranges ((-0.02 -0.02 0.02 0.02))))  ; 4 cm blocks",
    good="(candidates (:target table) (:ranges ((-0.25 -0.12 0.25 0.02))))",
    applies_to="question",
)
def region_smaller_than_footprint(ctx: Context) -> None:
    """A region that cannot hold even one of the candidates or static distractors (objects
    that are neither candidates nor ``:moving_objects``) placed in it: every one of its
    rectangles, shrunk by the object's footprint radius (so that the whole object stands
    inside), is empty. The layout sampler would stop on every episode."""
    seen: set[str] = set()
    for plan in [*(candidate_plans(ctx) or ()), *distractor_plans(ctx)]:
        if plan.rects or plan.region.full_name in seen:
            continue
        seen.add(plan.region.full_name)
        ctx.report(
            "RSB501",
            f"region {plan.region.full_name!r} is smaller than the footprint of "
            f"{plan.name!r} (radius {plan.radius:g} m): no rectangle is wider and deeper "
            f"than {2 * plan.radius:g} m",
            plan.region.span,
        )


@rule(
    "RSB502",
    "unreachable-region",
    "error",
    bad="(candidates (:target table) (:ranges ((0.4 -0.06 0.54 0.06))))  ; around a waist",
    good="(candidates (:target table) (:ranges ((-0.25 -0.12 0.25 0.02))))",
    applies_to="question",
)
def unreachable_region(ctx: Context) -> None:
    """A candidate region with no point the arms can pick from: a candidate center must lie
    between ``REACH_MIN`` and ``REACH_MAX`` (0.2-0.56 m) of the waist axis of the arm on its
    side (left arm at x = -0.469 m, right arm at x = 0.469 m, y = 0; ``rsb_mj.workspace``),
    as the layout sampler requires. Regions around a waist or beyond the far reach fail."""
    seen: set[str] = set()
    for plan in candidate_plans(ctx) or ():
        if not plan.rects or plan.region.full_name in seen:
            continue
        if any(rect_reachable(*r) for r in plan.rects):
            continue
        seen.add(plan.region.full_name)
        bases = ", ".join(f"{side} ({x:g}, {y:g})" for side, (x, y) in ARM_BASE_XY.items())
        ctx.report(
            "RSB502",
            f"no point of region {plan.region.full_name!r} (shrunk by the footprint radius "
            f"{plan.radius:g} m of {plan.name!r}) is within the arms' reach: "
            f"{REACH_MIN:g}-{REACH_MAX:g} m from a waist axis at {bases}",
            plan.region.span,
        )


@rule(
    "RSB503",
    "impossible-layout",
    "error",
    bad="(:layout (:min_spacing 0.2) (:yaw_range (-0.3 0.3)))  ; 10 blocks in 0.5 x 0.14 m",
    good="(:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))",
    applies_to="question",
)
def impossible_layout(ctx: Context) -> None:
    """The layout sampler's rules cannot be met: every candidate center inside its region
    shrunk by its footprint radius, within the arms' reach, its footprint 1 cm clear of the
    answer zone, and every two centers at least ``max(:min_spacing, r_i + r_j + 5 mm)``
    apart. The linter runs the sampler's rules on 16 trial layouts with the sampler's budget
    of proposals (fixed seed) and needs 2 to succeed; otherwise the sampler would stop, or
    fail some episodes. The same holds for the static distractors (objects neither
    candidates nor moving) around each trial layout: centers in their inset regions, 3 cm
    clear of the answer zone and of the candidates (a ``:cost`` hazard 1 cm), 5 mm clear of
    each other."""
    if not _trials_possible(ctx):
        return
    from rsb_mj.lang.layout import TRIAL_NEEDED, layout_trials  # (numpy: rsb scenes only)

    result = layout_trials(ctx.problem)
    if result[0] >= TRIAL_NEEDED:
        _impossible_distractors(ctx)
        return
    successes, trials = result
    layout = ctx.problem.layout
    spacing = layout.min_spacing if layout and layout.min_spacing is not None else 0.0
    regions = sorted({p.region.full_name for p in candidate_plans(ctx) or ()})
    ctx.report(
        "RSB503",
        f"the {len(ctx.problem.candidates)} candidates fit in {successes} of {trials} trial "
        f"layouts of {choices_text(regions)} (centers at least {spacing:g} m apart, within "
        "reach, clear of the answer zone); enlarge the regions or lower :min_spacing",
        layout.span if layout is not None else ctx.block_span("regions"),
    )


def _impossible_distractors(ctx: Context) -> None:
    """RSB503 for static distractors that find no room around the candidates."""
    # deferred: numpy, for rsb scenes only
    from rsb_mj.lang.layout import TRIAL_NEEDED, distractor_trials

    extra = distractor_plans(ctx)
    if not extra or len(extra) != len(distractor_names(ctx.problem)):
        return  # no distractors, or RSB2xx / RSB507 report an unplaced one
    if any(not p.rects for p in extra):
        return  # RSB501
    result = distractor_trials(ctx.problem)
    if result is None or result[0] >= TRIAL_NEEDED:
        return
    successes, trials = result
    regions = sorted({p.region.full_name for p in extra})
    ctx.report(
        "RSB503",
        f"the {len(extra)} non-candidate objects fit in {successes} of {trials} trial layouts "
        f"of {choices_text(regions)} (clear of the candidates and the answer zone); enlarge "
        "the regions or declare fewer objects",
        extra[0].region.span,
    )


def _trials_possible(ctx: Context) -> bool:
    """Whether the sampler can be run on ``ctx``'s candidates: each resolved to a region with
    a reachable inset rectangle on the table, and ``:min_spacing`` in [0, 1) m (other rules
    report why not)."""
    plans = candidate_plans(ctx)
    if not plans or any(not any(rect_reachable(*r) for r in p.rects) for p in plans):
        return False  # RSB501, RSB502
    layout = ctx.problem.layout
    spacing = layout.min_spacing if layout and layout.min_spacing is not None else 0.0
    hx, hy = TABLE_HALF_XY
    on_table = all(
        -hx <= x0 and x1 <= hx and -hy <= y0 and y1 <= hy
        for p in plans
        for x0, y0, x1, y1 in p.rects
    )
    return on_table and 0.0 <= spacing < 1.0  # else RSB302, RSB309
