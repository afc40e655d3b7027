"""RSB440: what a gripper holds at reset (``(Grasped OBJECT GRIPPER)`` in ``:init``,
:mod:`rsb_mj.lang.held`)."""

from __future__ import annotations

from rsb_mj.lang.expr import Atom, Name
from rsb_mj.lang.held import GRIPPERS, held_atoms
from rsb_mj.lang.rules.base import Context, rule


@rule(
    "RSB440",
    "held-at-reset",
    "error",
    bad="(:init (On cube table_pick_area) (Grasped cube left_hand))",
    good="(:init (On cube table_pick_area) (Grasped cube left_gripper))",
)
def held_at_reset(ctx: Context) -> None:
    """A ``(Grasped OBJECT GRIPPER)`` in ``:init`` the reset cannot carry out: the gripper
    is not ``left_gripper`` or ``right_gripper``; the object is a fixture, a region or a
    candidate (holding a candidate would be the choice); one gripper holds two objects, or
    one object is in two grippers; or ``:init`` has no ``(On OBJECT REGION)`` to pick it up
    from (the reset grasps it there with the expert's grasp and lifts it)."""
    by_gripper: dict[str, str] = {}
    by_object: dict[str, str] = {}
    placed = {
        a.args[0].value
        for a in ctx.problem.init
        if isinstance(a, Atom)
        and a.predicate.lower() == "on"
        and len(a.args) == 2
        and isinstance(a.args[0], Name)
    }
    for atom in held_atoms(ctx.problem):
        obj, gripper = atom.args
        if not isinstance(gripper, Name) or gripper.value not in GRIPPERS:
            text = gripper.value if isinstance(gripper, Name) else "?"
            ctx.report(
                "RSB440",
                f"unknown gripper {text!r}; valid choices: {', '.join(GRIPPERS)}",
                gripper.span,
            )
            continue
        if not isinstance(obj, Name):
            ctx.report("RSB440", "the held thing must be an object's name", obj.span)
            continue
        name = obj.value
        if name in ctx.fixtures or name in ctx.regions:
            ctx.report(
                "RSB440",
                f"{name!r} is a {'fixture' if name in ctx.fixtures else 'region'}; a gripper "
                "holds an object of :objects",
                obj.span,
            )
            continue
        if name not in ctx.objects:
            continue  # RSB207 names it
        if name in ctx.candidates:
            ctx.report(
                "RSB440",
                f"{name!r} is a candidate: holding it at reset would be the choice; hold "
                "what the goal moves (e.g. Act2Answer's cube)",
                obj.span,
            )
            continue
        if gripper.value in by_gripper:
            ctx.report(
                "RSB440",
                f"{gripper.value} already holds {by_gripper[gripper.value]!r}; one object per "
                "gripper",
                atom.span,
            )
            continue
        if name in by_object:
            ctx.report(
                "RSB440",
                f"{name!r} is already held by {by_object[name]}; one gripper per object",
                atom.span,
            )
            continue
        by_gripper[gripper.value], by_object[name] = name, gripper.value
        if name not in placed:
            ctx.report(
                "RSB440",
                f"(Grasped {name} {gripper.value}) needs ({'On'} {name} REGION) in :init: "
                "the reset picks the object up from there",
                atom.span,
            )
