"""RSB504-RSB506, RSB511: ``:grasp`` and ``:goal`` blocks the scorer cannot evaluate.

The scorer binds one candidate variable, gives a signal only for the answer zone (``In``) and
for an object resting on a candidate (``On``), and needs a predicate in each block it reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from rsb_mj.lang.expr import Arg, Atom, Name, Number, NumberList, Variable, walk_atoms
from rsb_mj.lang.goal import ANSWER_VARIABLE
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.predicates import RSB_SCOREABLE, canonical_predicate
from rsb_mj.lang.rules.base import Context, rule

__all__ = [
    "empty_scored_block",
    "several_free_variables",
    "unscoreable_argument",
    "unscoreable_region",
]


def _scored_atoms(ctx: Context) -> list[tuple[str, Atom]]:
    """Atoms of the blocks the scorer evaluates (``:grasp`` and ``:goal``)."""
    p = ctx.problem
    return [
        (block, atom)
        for block, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms))
        for term in terms
        for atom in walk_atoms(term)
    ]


@rule(
    "RSB504",
    "unscoreable-region",
    "error",
    bad="(:goal (And (In ?answer table_candidates) (Released ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
    applies_to="question",
)
def unscoreable_region(ctx: Context) -> None:
    """A place in ``:grasp`` or ``:goal`` the scorer has no signal for: ``(In X REGION)``
    where REGION is not an answer zone (one ``(:answer_zone ...)`` declares; the environment
    reports whether an object rests inside the answer zone, no other region), or
    ``(On X PLACE)`` where PLACE is not a candidate (``On`` is scored on a candidate: "the
    cube rests on the chosen plate", ``(On cube ?answer)``; a region takes ``In``)."""
    zones = sorted(ctx.problem.answer_zone_names)
    candidates = ctx.problem.candidates
    for block, atom in _scored_atoms(ctx):
        predicate = atom.predicate.lower()
        if predicate not in ("in", "on") or len(atom.args) != 2:
            continue
        place = atom.args[1]
        shown = place.value if isinstance(place, Name) else "that argument"
        if predicate == "in":
            if isinstance(place, Name) and place.value in zones:
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


def _names_candidate(arg: Arg, candidates: Sequence[str]) -> bool:
    """True for ``?answer``, a variable over the candidates, or a candidate's name."""
    if isinstance(arg, Variable):
        return arg.name == ANSWER_VARIABLE or arg.kind == "candidate"
    return isinstance(arg, Name) and arg.value in candidates


@rule(
    "RSB505",
    "unscoreable-argument",
    "error",
    bad="(:goal (And (In ?answer table_answer_zone) (Released table)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
    applies_to="question",
)
def unscoreable_argument(ctx: Context) -> None:
    """An atom of ``:grasp`` or ``:goal`` the scorer cannot bind: its first argument must be
    the object it talks about: a candidate (``?answer``, a variable ranging over the
    candidates such as ``?c - candidate``, or a candidate's name) or another object of
    ``:objects`` (the cube of ``(On cube ?answer)``); further arguments are names (the
    answer zone), or for ``On`` the candidate the object rests on (RSB504)."""
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
        if isinstance(subject, Number | NumberList) or (
            isinstance(subject, Name)
            and subject.value in ctx.decls
            and subject.value not in candidates
            and subject.value not in objects
        ):
            shown = subject.value if isinstance(subject, Name) else "a number"
            ctx.report(
                "RSB505",
                f"({atom.predicate} {shown} ...) in :{block} names no candidate or object; "
                f"valid choices: {valid}",
                subject.span,
            )
        supported = canonical_predicate(atom.predicate) == "On"
        for i, arg in enumerate(rest):
            if isinstance(arg, Name) or (supported and i == 0):
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
    applies_to="question",
)
def several_free_variables(ctx: Context) -> None:
    """A ``:grasp`` or ``:goal`` with more than one variable ranging over the candidates: the
    scorer asks whether the expression holds for *some* candidate, so it can bind only one
    (``?answer`` is bound to the correct candidate and does not count)."""
    p = ctx.problem
    for block, terms in (("grasp", p.grasp_terms), ("goal", p.goal_terms)):
        free: dict[str, Span] = {}
        for term in terms:
            for atom in walk_atoms(term):
                arg = atom.args[0] if atom.args else None
                if isinstance(arg, Variable) and arg.name != ANSWER_VARIABLE:
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
    "RSB511",
    "empty-scored-block",
    "error",
    bad="(:grasp )",
    good="(:grasp (Grasped ?c - candidate))",
    applies_to="question",
)
def empty_scored_block(ctx: Context) -> None:
    """An rsb task whose ``:grasp`` or ``:goal`` block is present but empty: the scorer would
    have nothing to evaluate, so no episode could ever grasp or succeed."""
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
