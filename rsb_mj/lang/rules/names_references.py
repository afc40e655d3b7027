"""RSB207, RSB212: every name and variable an expression uses refers to something.

A name in ``:init``, ``:grasp``, ``:goal``, ``:cost`` or ``:obj_of_interest`` must be a
declared object or fixture or a region's full name (``<target>_<region>``); a variable must
be one the episode binds (``?answer`` or a typed ``?c - candidate``), outside ``:init``.
"""

from __future__ import annotations

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import VARIABLE_KINDS
from rsb_mj.lang.expr import Name, Variable
from rsb_mj.lang.held import is_held_atom
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.predicates import PREDICATES
from rsb_mj.lang.rules.base import Context, rule
from rsb_mj.lang.rules.names_arguments import ALL_PARTS

__all__ = ["undefined_name", "undefined_variable"]


@rule(
    "RSB207",
    "undefined-name",
    "error",
    bad="(:goal (And (In ?answer table_answer_zon)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_name(ctx: Context) -> None:
    """A name used in ``:init``, ``:goal``, ``:cost``, ``:grasp`` or ``:obj_of_interest`` that
    is neither a declared object or fixture nor a region's full name (``<target>_<region>``).
    Outside ``(:domain rsb)`` an ``:obj_of_interest`` name is a warning (LIBERO's and
    VLA-Arena's loaders accept it)."""
    known = set(ctx.decls) | set(ctx.regions)

    def check(name: str, span: Span, where: str) -> None:
        if name in known:
            return
        close = did_you_mean(name, known)
        hint = f"; did you mean {close!r}?" if close else ""
        # LIBERO's and VLA-Arena's loaders never resolve :obj_of_interest names: a warning there
        loose = where == ":obj_of_interest" and not ctx.is_rsb
        ctx.report(
            "RSB207",
            f"{name!r} in {where} is not a declared object, fixture or region{hint}"
            + (
                "; LIBERO's and VLA-Arena's loaders accept this (a warning in their domains)"
                if loose
                else ""
            ),
            span,
            fix=close,
            severity="warning" if loose else None,
        )

    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        takes_parts = info is not None and "parts" in (info.args or ())
        held = is_held_atom(block, atom)
        for index, arg in enumerate(atom.args):
            if not isinstance(arg, Name) or (takes_parts and arg.value == ALL_PARTS):
                continue
            if held and index == 1:
                continue  # the gripper of (Grasped OBJECT GRIPPER): RSB440
            check(arg.value, arg.span, f":{block}")
    for name in ctx.problem.obj_of_interest:
        check(name, ctx.block_span("obj_of_interest"), ":obj_of_interest")


@rule(
    "RSB212",
    "undefined-variable",
    "error",
    bad="(:goal (And (In ?anser table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_variable(ctx: Context) -> None:
    """A variable the episode does not bind. ``?answer`` (the correct option's candidate) may
    appear in ``:grasp``, ``:goal`` and ``:cost``; a typed variable ``?c - candidate`` ranges
    over all candidates in the same blocks. ``:init`` describes the start state and takes no
    variables."""
    for block, atom in ctx.atoms():
        for arg in atom.args:
            if not isinstance(arg, Variable):
                continue
            if block == "init":
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' in :init; :init names objects and regions only",
                    arg.span,
                )
            elif arg.kind is not None and arg.kind not in VARIABLE_KINDS:
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' has unknown kind {arg.kind!r}; valid choices: "
                    f"{', '.join(VARIABLE_KINDS)}",
                    arg.span,
                )
            elif arg.kind is None and arg.name != "answer":
                close = did_you_mean(arg.name, ["answer"])
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' is not bound; valid choices: ?answer, "
                    "or a typed variable such as '?c - candidate'",
                    arg.span,
                    fix="?answer" if close else None,
                )
