"""RSB205-206: each atom's arguments against its predicate's signature, their number and
their kinds.

The signatures (argument kinds: object, place = object or region, region, number, numbers,
parts = ``all`` or a list of part ids) are those of
:data:`rsb_mj.lang.predicates.PREDICATES`, as LIBERO's and VLA-Arena's evaluators read them.
"""

from __future__ import annotations

from rsb_mj.lang.expr import Arg, Atom, Name, Number, NumberList, Variable
from rsb_mj.lang.held import is_held_atom
from rsb_mj.lang.predicates import PREDICATES
from rsb_mj.lang.rules.base import Context, rule

__all__ = ["ALL_PARTS", "argument_kind", "expected_kinds", "predicate_arity"]


@rule(
    "RSB205",
    "predicate-arity",
    "error",
    bad="(:goal (And (In ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def predicate_arity(ctx: Context) -> None:
    """A known predicate applied to the wrong number of arguments (arities as LIBERO's and
    VLA-Arena's ``base_predicates.py`` and ``_eval_predicate`` read them)."""
    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        if info is None or info.args is None or len(atom.args) == info.arity:
            continue
        if is_held_atom(block, atom):
            continue  # (Grasped OBJECT GRIPPER): held at reset, RSB440
        ctx.report(
            "RSB205",
            f"{info.name!r} takes {info.arity} argument{'s' if info.arity != 1 else ''} "
            f"({', '.join(info.args)}), got {len(atom.args)}",
            atom.span,
        )


def _arg_kind(ctx: Context, arg: Arg) -> str:
    if isinstance(arg, Number):
        return "number"
    if isinstance(arg, NumberList):
        return "numbers"
    if isinstance(arg, Variable):
        return "variable"
    if arg.value in ctx.regions:
        return "region"
    if arg.value in ctx.decls:
        return "object"
    if arg.value == ALL_PARTS:
        return "all"
    return "undefined"


#: The name that stands for every part of an object (``InContactPart``).
ALL_PARTS = "all"

_ACCEPTS = {
    "object": {"object", "variable"},
    "place": {"object", "region", "variable"},
    "region": {"region", "variable"},
    "number": {"number"},
    "numbers": {"numbers"},
    "parts": {"numbers", "all"},
}


def expected_kinds(atom: Atom) -> tuple[str, ...] | None:
    """The argument kinds ``atom``'s predicate expects, when known and the arity matches."""
    info = PREDICATES.get(atom.predicate.lower())
    if info is None or info.args is None or len(atom.args) != info.arity:
        return None
    return info.args


@rule(
    "RSB206",
    "argument-kind",
    "error",
    bad="(:init (On table_candidates block_a))",
    good="(:init (On block_a table_candidates))",
)
def argument_kind(ctx: Context) -> None:
    """An argument of the wrong kind: a region where an object is expected, a name where a
    number is expected, and so on (kinds: object, place = object or region, region, number,
    numbers, parts = ``all`` or a list of part ids)."""
    for _, atom in ctx.atoms():
        kinds = expected_kinds(atom)
        if kinds is None:
            continue
        for index, (arg, want) in enumerate(zip(atom.args, kinds, strict=True), start=1):
            got = _arg_kind(ctx, arg)
            if got == "undefined" or got in _ACCEPTS[want]:
                continue
            ctx.report(
                "RSB206",
                f"argument {index} of {atom.predicate!r} must be {_article(want)}, "
                f"got {got} {_show(arg)}",
                arg.span,
            )


def _article(kind: str) -> str:
    return {
        "object": "an object",
        "place": "an object or region",
        "region": "a region",
        "number": "a number",
        "numbers": "a list of numbers",
        "parts": "all or a list of part ids",
    }[kind]


def _show(arg: Arg) -> str:
    if isinstance(arg, Name):
        return repr(arg.value)
    if isinstance(arg, Variable):
        return f"'?{arg.name}'"
    if isinstance(arg, Number):
        return f"{arg.value:g}"
    return "(" + " ".join(f"{v:g}" for v in arg.values) + ")"
