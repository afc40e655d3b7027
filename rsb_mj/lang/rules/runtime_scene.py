"""RSB507-RSB510: what the scene compiler and the environment cannot build from a task.

Every object needs a region to stand on and a name of its own among the robot scene's bodies;
the visual blocks must be ones the environment can apply; and a LIBERO / VLA-Arena file given
to the question environment (``target="question"``) lists every part it has no model of
(RSB510; ``rsb lint --target rsb`` checks such a file as the goal task it is, RSB530-534).
"""

from __future__ import annotations

from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.known_categories import ARTICULATED_CATEGORIES
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.rules.runtime_plans import placement
from rsb_mj.lang.settings import SettingError, read_settings
from rsb_mj.lang.table_top import RSB_FIXTURE_CATEGORIES
from rsb_mj.workspace import SCENE_BODY_NAMES

__all__ = ["bad_visual_setting", "foreign_scene", "reserved_name", "unplaced_object"]


@rule(
    "RSB507",
    "unplaced-object",
    "error",
    bad="(:objects block_a - letter_block can_1 - can)\n(:init (On block_a table_candidates))",
    good="(:init (On block_a table_candidates) (On can_1 table_candidates))",
    applies_to="question",
)
def unplaced_object(ctx: Context) -> None:
    """An object of an rsb task that the scene cannot put anywhere: every object needs an
    ``(On OBJECT REGION)`` in ``:init`` whose REGION is a region with ``:ranges`` (candidates
    are sampled inside it, other objects stand at the center of its first rectangle), not
    another object."""
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
    applies_to="question",
)
def reserved_name(ctx: Context) -> None:
    """An object named like a body of the robot scene (``table``, ``base``, ``world``, the arm
    mounts and hands; ``rsb_mj.workspace.SCENE_BODY_NAMES``): each object becomes a body of
    its own name, and MuJoCo rejects a repeated name."""
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
    applies_to="question",
)
def bad_visual_setting(ctx: Context) -> None:
    """A visual block (``:image_settings``, ``:noise``, ``:camera``, ``:random_color``) of an
    rsb task that the environment cannot apply: an unknown key, camera or noise kind, a
    missing value, a value out of range, or a block given twice (the environment's own reader,
    ``rsb_mj.lang.settings``, says which)."""

    try:
        read_settings(ctx.problem)
    except SettingError as exc:
        ctx.report("RSB509", exc.detail, exc.span)


@rule(
    "RSB510",
    "foreign-scene",
    "error",
    bad="; given to the question environment (RsbEnv)\n(:domain robosuite)\n"
    "(:fixtures main_table - table wooden_cabinet_1 - wooden_cabinet)\n"
    "(:objects plate_1 - plate)",
    good="(:domain rsb)\n(:fixtures table - table)\n(:objects block_a block_b block_c "
    "block_d - letter_block)\n(:candidates block_a block_b block_c block_d)\n"
    "(:question (:source arithmetic) (:choices 4))",
    applies_to="goal",
)
def foreign_scene(ctx: Context) -> None:
    """A LIBERO or VLA-Arena file given to the question environment (``RsbEnv``, which
    builds question scenes): one finding per part it cannot build, at its position: fixtures
    other than the table (articulated ones named as such), object categories with no rsb
    model, and the missing ``:candidates`` and ``:question`` blocks. ``rsb eval FILE`` runs
    such a file as a goal task instead, and ``rsb lint`` (with or without ``--target rsb``)
    checks it as one (RSB530-RSB534)."""
    if ctx.target != "question":
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
    ctx.report(  # a goal task has no :question (rsb_mj.lang.task.task_family)
        "RSB510",
        "no (:question (:source S) (:choices N)) block: rsb_mj asks a question",
        ctx.problem.span,
    )


def _kind(category: str) -> str:
    return f"{category}, articulated" if category in ARTICULATED_CATEGORIES else category
