"""RSB5xx: what the rsb runtime can build, place and score (lint-clean implies runs).

Each rule stands for an error the scene compiler, the layout sampler, the scorer or the
environment would raise on an rsb task, and reads the same facts they do
(:mod:`rsb_mj.workspace`, :mod:`rsb_mj.lang.vocabulary`, :mod:`rsb_mj.perturb.settings`).
Lengths are metres in the table frame. LIBERO / VLA-Arena files (``(:domain robosuite)``
without a ``:question``) are not checked here, their own simulators build them, except by
RSB510 when they are checked as rsb scenes (``target="rsb"``: the environment).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rsb_mj.lang import ast
from rsb_mj.lang.goal import ANSWER_VARIABLE
from rsb_mj.lang.placement import cost_objects, distractor_names
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.vocabulary import (
    ARTICULATED_CATEGORIES,
    CHOICE_COUNTS,
    RSB_CATEGORIES,
    RSB_FIXTURE_CATEGORIES,
    RSB_SCOREABLE,
    SOURCE_CHOICES,
    canonical_predicate,
    footprint_radius,
)

if TYPE_CHECKING:
    import random

from rsb_mj.workspace import (
    ANSWER_ZONE_MARGIN,
    ARM_BASE_XY,
    DISTRACTOR_CLEARANCE,
    DISTRACTOR_ZONE_MARGIN,
    FOOTPRINT_CLEARANCE,
    HAZARD_CLEARANCE,
    REACH_MAX,
    REACH_MIN,
    SCENE_BODY_NAMES,
    TABLE_HALF_XY,
    reachable,
    rect_reachable,
)

#: Trial layouts the impossible-layout rule draws, proposals per candidate in each (the
#: sampler's own budget), and how many must succeed. The sampler itself makes up to 64
#: passes per episode, so a task that lints clean fails an episode with probability below
#: (1 - 2/16) ** 64, about 2e-4, and in practice far less.
TRIAL_LAYOUTS = 16
TRIAL_TRIES = 512
TRIAL_NEEDED = 2
#: Seed of the trial layouts (lint results never vary from run to run).
TRIAL_SEED = 0

Rect4 = tuple[float, float, float, float]


def _zone_rects(problem: ast.Problem) -> list[Rect4]:
    """Every rectangle of the answer-zone regions (``problem.answer_zone_regions``, as the
    scene draws them)."""
    return [
        (r.x0, r.y0, r.x1, r.y1) for region in problem.answer_zone_regions for r in region.ranges
    ]


def placement(problem: ast.Problem, obj: str) -> ast.Atom | None:
    """The first ``(On obj X)`` of ``:init`` (the one the runtime reads), or None."""
    for expr in problem.init:
        for atom in ast.walk_atoms(expr):
            if (
                atom.predicate.lower() == "on"
                and len(atom.args) == 2
                and isinstance(atom.args[0], ast.Name)
                and isinstance(atom.args[1], ast.Name)
                and atom.args[0].value == obj
            ):
                return atom
    return None


def _inset(region: ast.Region, radius: float) -> list[Rect4]:
    """The region's rectangles shrunk by ``radius`` (the layout sampler's ``_inset``)."""
    out = []
    for r in region.ranges:
        lo_x, hi_x = min(r.x0, r.x1) + radius, max(r.x0, r.x1) - radius
        lo_y, hi_y = min(r.y0, r.y1) + radius, max(r.y0, r.y1) - radius
        if hi_x >= lo_x and hi_y >= lo_y:
            out.append((lo_x, lo_y, hi_x, hi_y))
    return out


@dataclass(frozen=True)
class _Plan:
    """Where one candidate (or static distractor) may stand: its footprint radius, its
    region's inset area and, for a distractor, its clearance to the candidates [m]."""

    name: str
    radius: float
    region: ast.Region
    rects: list[Rect4]
    gap: float = 0.0


def _plans(ctx: Context) -> list[_Plan] | None:
    """Per candidate (in order), its placement plan; None when some candidate cannot be
    resolved (undeclared, unplaced, placed on something that is not a region: other rules
    report those)."""
    plans = []
    for name in ctx.problem.candidates:
        decl = ctx.objects.get(name)
        atom = placement(ctx.problem, name)
        if decl is None or atom is None:
            return None
        region = ctx.regions.get(atom.args[1].value)  # type: ignore[union-attr]
        if region is None or not region.ranges:
            return None
        radius = footprint_radius(decl.category)
        plans.append(_Plan(name, radius, region, _inset(region, radius)))
    return plans


def _distractor_plans(ctx: Context) -> list[_Plan]:
    """The placement plan of each static distractor (:func:`~rsb_mj.lang.placement.
    distractor_names`) placed on a region with ``:ranges`` (other rules report the others),
    with its clearance to the candidates (a hazard's is smaller)."""
    hazards = set(cost_objects(ctx.problem))
    plans = []
    for name in distractor_names(ctx.problem):
        decl = ctx.objects.get(name)
        atom = placement(ctx.problem, name)
        region = ctx.regions.get(atom.args[1].value) if atom is not None else None  # type: ignore[union-attr]
        if decl is not None and region is not None and region.ranges:
            radius = footprint_radius(decl.category)
            gap = HAZARD_CLEARANCE if name in hazards else DISTRACTOR_CLEARANCE
            plans.append(_Plan(name, radius, region, _inset(region, radius), gap))
    return plans


def _fmt(rect: Rect4) -> str:
    return "(" + " ".join(f"{v:g}" for v in rect) + ")"


@rule(
    "RSB501",
    "region-smaller-than-footprint",
    "error",
    bad="(candidates (:target table) (:ranges ((-0.02 -0.02 0.02 0.02))))  ; 4 cm blocks",
    good="(candidates (:target table) (:ranges ((-0.25 -0.12 0.25 0.02))))",
)
def region_smaller_than_footprint(ctx: Context) -> None:
    """A region that cannot hold even one of the candidates or static distractors (objects
    that are neither candidates nor ``:moving_objects``) placed in it: every one of its
    rectangles, shrunk by the object's footprint radius (so that the whole object stands
    inside), is empty. The layout sampler would stop on every episode."""
    if not ctx.is_rsb:
        return
    seen: set[str] = set()
    for plan in [*(_plans(ctx) or ()), *_distractor_plans(ctx)]:
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
)
def unreachable_region(ctx: Context) -> None:
    """A candidate region with no point the arms can pick from: a candidate center must lie
    between ``REACH_MIN`` and ``REACH_MAX`` (0.2-0.56 m) of the waist axis of the arm on its
    side (left arm at x = -0.469 m, right arm at x = 0.469 m, y = 0; ``rsb_mj.workspace``),
    as the layout sampler requires. Regions around a waist or beyond the far reach fail."""
    if not ctx.is_rsb:
        return
    seen: set[str] = set()
    for plan in _plans(ctx) or ():
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


def _trial(
    plans: list[_Plan], zone: list[Rect4], spacing: float, rng: random.Random, tries: int
) -> list[tuple[float, float, float]] | None:
    """One sequential pass of the layout sampler's rules (pure Python): the (x, y, radius)
    of every candidate [m] when each found a spot within ``tries`` proposals, else None."""
    return _sequential_pass(
        plans, zone, rng, tries, margin=ANSWER_ZONE_MARGIN, spacing=spacing, reach=True
    )


def _distractor_trial(
    plans: list[_Plan],
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
    plans: list[_Plan],
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


def _trial_setup(ctx: Context) -> tuple[list[_Plan], list[Rect4], float] | None:
    """(candidate plans, answer-zone rectangles, min spacing [m]) for trial layouts, or None
    when the plan cannot be made (other rules report why)."""
    plans = _plans(ctx)
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
    extra = _distractor_plans(ctx)
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


@rule(
    "RSB503",
    "impossible-layout",
    "error",
    bad="(:layout (:min_spacing 0.2) (:yaw_range (-0.3 0.3)))  ; 10 blocks in 0.5 x 0.14 m",
    good="(:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))",
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
    if not ctx.is_rsb:
        return
    result = layout_trials(ctx)
    if result is not None and result[0] >= TRIAL_NEEDED:
        _impossible_distractors(ctx)
    if result is None or result[0] >= TRIAL_NEEDED:
        return
    successes, trials = result
    layout = ctx.problem.layout
    spacing = layout.min_spacing if layout and layout.min_spacing is not None else 0.0
    regions = sorted({p.region.full_name for p in _plans(ctx) or ()})
    ctx.report(
        "RSB503",
        f"the {len(ctx.problem.candidates)} candidates fit in {successes} of {trials} trial "
        f"layouts of {choices_text(regions)} (centers at least {spacing:g} m apart, within "
        "reach, clear of the answer zone); enlarge the regions or lower :min_spacing",
        layout.span if layout is not None else ctx.block_span("regions"),
    )


def _impossible_distractors(ctx: Context) -> None:
    """RSB503 for static distractors that find no room around the candidates."""
    result = distractor_trials(ctx)
    if result is None or result[0] >= TRIAL_NEEDED:
        return
    successes, trials = result
    extra = _distractor_plans(ctx)
    regions = sorted({p.region.full_name for p in extra})
    ctx.report(
        "RSB503",
        f"the {len(extra)} non-candidate objects fit in {successes} of {trials} trial layouts "
        f"of {choices_text(regions)} (clear of the candidates and the answer zone); enlarge "
        "the regions or declare fewer objects",
        extra[0].region.span,
    )


def _scored_atoms(ctx: Context) -> list[tuple[str, ast.Atom]]:
    """Atoms of the blocks the scorer evaluates (``:grasp`` and ``:goal``)."""
    p = ctx.problem
    return [
        (block, atom)
        for block, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms))
        for term in terms
        for atom in ast.walk_atoms(term)
    ]


@rule(
    "RSB504",
    "unscoreable-region",
    "error",
    bad="(:goal (And (In ?answer table_candidates) (Released ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def unscoreable_region(ctx: Context) -> None:
    """A place in ``:grasp`` or ``:goal`` the scorer has no signal for: ``(In X REGION)``
    where REGION is not an answer zone (one ``(:answer_zone ...)`` declares; the environment
    reports whether an object rests inside the answer zone, no other region), or
    ``(On X PLACE)`` where PLACE is not a candidate (``On`` is scored on a candidate: "the
    cube rests on the chosen plate", ``(On cube ?answer)``; a region takes ``In``)."""
    if not ctx.is_rsb:
        return
    zones = sorted(ctx.problem.answer_zone_names)
    candidates = ctx.problem.candidates
    for block, atom in _scored_atoms(ctx):
        predicate = atom.predicate.lower()
        if predicate not in ("in", "on") or len(atom.args) != 2:
            continue
        place = atom.args[1]
        shown = place.value if isinstance(place, ast.Name) else "that argument"
        if predicate == "in":
            if isinstance(place, ast.Name) and place.value in zones:
                continue
            ctx.report(
                "RSB504",
                f"(In ... {shown}) in :{block} cannot be scored: only the answer zone has a "
                f"signal; valid choices: {', '.join(zones) or '(no :answer_zone declared)'}",
                place.span,
            )
        elif not _names_candidate(place, candidates):
            valid = ", ".join(("?answer", "?c - candidate", *candidates))
            ctx.report(
                "RSB504",
                f"(On ... {shown}) in :{block} cannot be scored: On is scored on a "
                f"candidate; valid choices: {valid} (a region takes In)",
                place.span,
            )


def _names_candidate(arg: ast.Arg, candidates: Sequence[str]) -> bool:
    """True for ``?answer``, a variable over the candidates, or a candidate's name."""
    if isinstance(arg, ast.Variable):
        return arg.name == ANSWER_VARIABLE or arg.kind == "candidate"
    return isinstance(arg, ast.Name) and arg.value in candidates


@rule(
    "RSB505",
    "unscoreable-argument",
    "error",
    bad="(:goal (And (In ?answer table_answer_zone) (Released table)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def unscoreable_argument(ctx: Context) -> None:
    """An atom of ``:grasp`` or ``:goal`` the scorer cannot bind: its first argument must be
    the object it talks about: a candidate (``?answer``, a variable ranging over the
    candidates such as ``?c - candidate``, or a candidate's name) or another object of
    ``:objects`` (the cube of ``(On cube ?answer)``); further arguments are names (the
    answer zone), or for ``On`` the candidate the object rests on (RSB504)."""
    if not ctx.is_rsb:
        return
    candidates = set(ctx.problem.candidates)
    objects = [d.name for d in ctx.problem.objects if d.name not in candidates]
    valid = ", ".join(("?answer", "?c - candidate", *ctx.problem.candidates, *objects))
    for block, atom in _scored_atoms(ctx):
        if canonical_predicate(atom.predicate) not in RSB_SCOREABLE:
            continue  # RSB204, RSB213
        if not atom.args:
            ctx.report(
                "RSB505",
                f"({atom.predicate}) in :{block} needs a candidate argument; valid choices: "
                + valid,
                atom.span,
            )
            continue
        subject, rest = atom.args[0], atom.args[1:]
        if isinstance(subject, ast.Number | ast.NumberList) or (
            isinstance(subject, ast.Name)
            and subject.value in ctx.decls
            and subject.value not in candidates
            and subject.value not in objects
        ):
            shown = subject.value if isinstance(subject, ast.Name) else "a number"
            ctx.report(
                "RSB505",
                f"({atom.predicate} {shown} ...) in :{block} names no candidate or object; "
                f"valid choices: {valid}",
                subject.span,
            )
        supported = canonical_predicate(atom.predicate) == "On"
        for i, arg in enumerate(rest):
            if isinstance(arg, ast.Name) or (supported and i == 0):
                continue
            ctx.report(
                "RSB505",
                f"({atom.predicate} ...) in :{block} takes names after the candidate "
                "(e.g. table_answer_zone)",
                arg.span,
            )


@rule(
    "RSB506",
    "several-free-variables",
    "error",
    bad="(:grasp (And (Grasped ?c - candidate) (Released ?d - candidate)))",
    good="(:grasp (Grasped ?c - candidate))",
)
def several_free_variables(ctx: Context) -> None:
    """A ``:grasp`` or ``:goal`` with more than one variable ranging over the candidates: the
    scorer asks whether the expression holds for *some* candidate, so it can bind only one
    (``?answer`` is bound to the correct candidate and does not count)."""
    if not ctx.is_rsb:
        return
    p = ctx.problem
    for block, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms)):
        free: dict[str, ast.Span] = {}
        for term in terms:
            for atom in ast.walk_atoms(term):
                arg = atom.args[0] if atom.args else None
                if isinstance(arg, ast.Variable) and arg.name != ANSWER_VARIABLE:
                    free.setdefault(arg.name, arg.span)
        if len(free) > 1:
            names = sorted(free)
            ctx.report(
                "RSB506",
                f":{block} has {len(names)} variables ranging over the candidates "
                f"({', '.join('?' + n for n in names)}); the scorer binds one",
                free[names[1]],
            )


@rule(
    "RSB507",
    "unplaced-object",
    "error",
    bad="(:objects block_a - letter_block can_1 - can)\n(:init (On block_a table_candidates))",
    good="(:init (On block_a table_candidates) (On can_1 table_candidates))",
)
def unplaced_object(ctx: Context) -> None:
    """An object of an rsb task that the scene cannot put anywhere: every object needs an
    ``(On OBJECT REGION)`` in ``:init`` whose REGION is a region with ``:ranges`` (candidates
    are sampled inside it, other objects stand at the center of its first rectangle), not
    another object."""
    if not ctx.is_rsb:
        return
    candidates = set(ctx.problem.candidates)
    for decl in ctx.problem.objects:
        atom = placement(ctx.problem, decl.name)
        if atom is None:
            if decl.name not in candidates:  # candidates: RSB310
                ctx.report(
                    "RSB507",
                    f"object {decl.name!r} has no (On {decl.name} REGION) in :init; the scene "
                    "cannot place it",
                    decl.span,
                    fix=f"(On {decl.name} table_candidates)",
                )
            continue
        target = atom.args[1]
        region = ctx.regions.get(target.value)  # type: ignore[union-attr]
        if region is not None and region.ranges:
            continue
        what = "has no (:ranges ...)" if region is not None else "is not a region"
        ctx.report(
            "RSB507",
            f"{decl.name!r} is placed on {target.value!r}, which {what}; valid choices: "  # type: ignore[union-attr]
            + (choices_text(r.full_name for r in ctx.problem.regions if r.ranges) or "(none)"),
            target.span,
        )


@rule(
    "RSB508",
    "reserved-name",
    "error",
    bad="(:objects table - letter_block)",
    good="(:objects block_a - letter_block)",
)
def reserved_name(ctx: Context) -> None:
    """An object named like a body of the robot scene (``table``, ``base``, ``world``, the arm
    mounts and hands; ``rsb_mj.workspace.SCENE_BODY_NAMES``): each object becomes a body of
    its own name, and MuJoCo rejects a repeated name."""
    if not ctx.is_rsb:
        return
    for decl in ctx.problem.objects:
        if decl.name in SCENE_BODY_NAMES:
            ctx.report(
                "RSB508",
                f"object name {decl.name!r} is taken by the robot scene; reserved names: "
                + choices_text(SCENE_BODY_NAMES),
                decl.span,
            )


@rule(
    "RSB509",
    "bad-visual-setting",
    "error",
    bad="(:camera head 0.9 0 0)",
    good="(:camera head 0.02 -0.03 0.01)",
)
def bad_visual_setting(ctx: Context) -> None:
    """A visual block (``:image_settings``, ``:noise``, ``:camera``, ``:random_color``) of an
    rsb task that the environment cannot apply: an unknown key, camera or noise kind, a
    missing value, a value out of range, or a block given twice (the environment's own reader,
    ``rsb_mj.lang.settings``, says which)."""
    if not ctx.is_rsb:
        return
    from rsb_mj.lang.settings import SettingError, read_settings

    try:
        read_settings(ctx.problem)
    except SettingError as exc:
        ctx.report("RSB509", exc.detail, exc.span)


@rule(
    "RSB511",
    "empty-scored-block",
    "error",
    bad="(:grasp )",
    good="(:grasp (Grasped ?c - candidate))",
)
def empty_scored_block(ctx: Context) -> None:
    """An rsb task whose ``:grasp`` or ``:goal`` block is present but empty: the scorer would
    have nothing to evaluate, so no episode could ever grasp or succeed."""
    if not ctx.is_rsb:
        return
    p = ctx.problem
    for keyword, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms)):
        if not terms and any(k == keyword for k, _ in p.blocks):
            ctx.report(
                "RSB511",
                f"(:{keyword}) is empty; the scorer needs a predicate, e.g. "
                + (
                    "(Grasped ?c - candidate)"
                    if keyword == "grasp"
                    else "(And (In ?answer table_answer_zone) (Released ?answer))"
                ),
                ctx.block_span(keyword),
            )


@rule(
    "RSB520",
    "source-choice-count",
    "error",
    bad="(:question (:source mmlu) (:choices 10))",
    good="(:question (:source mmlu_pro) (:choices 10))",
)
def source_choice_count(ctx: Context) -> None:
    """A choice count the question source cannot serve: each source makes options from what
    its questions offer (MMLU questions have 4 options, so ``mmlu`` serves 2 to 4 choices;
    ``rsb_mj.lang.vocabulary.SOURCE_CHOICES``, the sampler's own table)."""
    q = ctx.problem.question
    if q is None or q.source not in SOURCE_CHOICES or q.choices is None:
        return
    valid = SOURCE_CHOICES[q.source]
    if q.choices not in CHOICE_COUNTS or int(q.choices) in valid:
        return  # RSB404 reports counts no source serves
    ctx.report(
        "RSB520",
        f"(:source {q.source}) cannot make {q.choices:g} options; valid choices: "
        + ", ".join(map(str, valid)),
        q.span,
    )


@rule(
    "RSB510",
    "foreign-scene",
    "error",
    bad="; given to the environment (or rsb lint --target rsb)\n(:domain robosuite)\n"
    "(:fixtures main_table - table wooden_cabinet_1 - wooden_cabinet)\n"
    "(:objects plate_1 - plate)",
    good="(:domain rsb)\n(:fixtures table - table)\n(:objects block_a block_b block_c "
    "block_d - letter_block)\n(:candidates block_a block_b block_c block_d)\n"
    "(:question (:source arithmetic) (:choices 4))",
)
def foreign_scene(ctx: Context) -> None:
    """A LIBERO or VLA-Arena file given to the rsb environment (or linted with
    ``rsb lint --target rsb``): one finding per part rsb_mj cannot build, at its position:
    fixtures other than the table (articulated ones named as such), object categories with
    no rsb model, and the missing ``:candidates`` and ``:question`` blocks. Without
    ``--target rsb`` such files are linted as what they are (LIBERO / VLA-Arena tasks)."""
    if ctx.target != "rsb" or ctx.is_rsb:
        return
    for decl in ctx.problem.fixtures:
        if decl.category in RSB_FIXTURE_CATEGORIES or not decl.category:
            continue
        ctx.report(
            "RSB510",
            f"fixture {decl.name!r} ({_kind(decl.category)}): rsb_mj builds only the table; "
            f"valid choices: {', '.join(sorted(RSB_FIXTURE_CATEGORIES))}",
            decl.span,
        )
    for decl in ctx.problem.objects:
        if decl.category in RSB_CATEGORIES or not decl.category:
            continue
        ctx.report(
            "RSB510",
            f"object {decl.name!r} ({_kind(decl.category)}): rsb_mj has no model of this "
            f"category; valid choices: {choices_text(RSB_CATEGORIES, 30)}",
            decl.span,
        )
    if ctx.problem.candidate_names is None:
        ctx.report(
            "RSB510",
            "no (:candidates ...) block: rsb_mj needs the objects that stand for the options",
            ctx.problem.span,
        )
    if ctx.problem.question is None:
        ctx.report(
            "RSB510",
            "no (:question (:source S) (:choices N)) block: rsb_mj asks a question",
            ctx.problem.span,
        )


def _kind(category: str) -> str:
    return f"{category}, articulated" if category in ARTICULATED_CATEGORIES else category
