"""RSB204, RSB213: the predicates a task names are ones its domain's registries define and,
in an rsb task, ones the rsb simulator can evaluate in the block that names them.

The registries are :data:`rsb_mj.lang.predicates.PREDICATES` (LIBERO's, VLA-Arena's and
rsb's, each predicate with the domains that define it).
"""

from __future__ import annotations

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.held import is_held_atom
from rsb_mj.lang.predicates import (
    PREDICATE_DOMAINS,
    PREDICATES,
    RSB_COST,
    RSB_PLACEMENT,
    RSB_SCOREABLE,
    PredicateInfo,
    predicates_of,
)
from rsb_mj.lang.rules.base import Context, choices_text, rule

__all__ = ["unknown_predicate", "unscoreable_predicate"]


def _registry(ctx: Context) -> tuple[dict[str, PredicateInfo], dict[str, PredicateInfo], str]:
    """The predicates a file may name, by its domain: any other file than an rsb task reads
    LIBERO's and VLA-Arena's registries together; an rsb task may name any registered
    predicate (RSB213 then says which ones the rsb simulator cannot evaluate)."""
    if ctx.is_rsb:
        return PREDICATES, predicates_of(("rsb",)), "rsb"
    both = predicates_of(("libero", "vla_arena"))
    return both, both, "LIBERO or VLA-Arena"


@rule(
    "RSB204",
    "unknown-predicate",
    "error",
    bad="(:init (Onn block_a table_candidates))",
    good="(:init (On block_a table_candidates))",
)
def unknown_predicate(ctx: Context) -> None:
    """A predicate no registry of the file's domain defines: LIBERO's and VLA-Arena's for a
    ``(:domain robosuite)`` file (``rsb_mj.lang.predicates.PREDICATES``, read from the two
    projects' ``predicates/__init__.py``); any registry for an rsb task. Their evaluators would
    stop on it (or, in a ``:cost``, it would never fire)."""
    known, shown, where = _registry(ctx)
    valid = [p.name for p in shown.values()]
    for _, atom in ctx.atoms():
        if atom.predicate.lower() in known:
            continue
        close = did_you_mean(atom.predicate, [p.name for p in known.values()])
        hint = f"did you mean {close!r}? " if close else ""
        other = PREDICATES.get(atom.predicate.lower())
        if other is not None:
            names = ", ".join(_DOMAIN_WORDS[d] for d in PREDICATE_DOMAINS if d in other.domains)
            hint = f"it is {names}'s, not {where}'s; " + hint
        ctx.report(
            "RSB204",
            f"unknown predicate {atom.predicate!r}; {hint}valid choices: {choices_text(valid, 30)}",
            atom.span,
            fix=close,
        )


_DOMAIN_WORDS = {"libero": "LIBERO", "vla_arena": "VLA-Arena", "rsb": "rsb"}


@rule(
    "RSB213",
    "unscoreable-predicate",
    "error",
    bad="(:goal (And (InContact ?answer table) (Released ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def unscoreable_predicate(ctx: Context) -> None:
    """In an rsb task, a registered predicate the rsb simulator cannot evaluate where it is
    used: ``:grasp`` and ``:goal`` take the predicates ``rsb_mj.scoring`` scores
    (``RSB_SCOREABLE``: Grasped, In, On, Released), ``:cost`` the safety predicates
    ``rsb_mj.scoring.cost`` evaluates (``RSB_COST``), ``:init`` the placement the layout
    sampler reads (``On``). LIBERO and VLA-Arena files are not checked: their own simulators
    evaluate their predicates."""
    if not ctx.is_rsb:
        return
    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        if info is None:
            continue  # RSB204
        valid = {"init": RSB_PLACEMENT, "cost": RSB_COST}.get(block, RSB_SCOREABLE)
        if info.name in valid or is_held_atom(block, atom):  # held at reset: RSB440
            continue
        names = ", ".join(_DOMAIN_WORDS[d] for d in PREDICATE_DOMAINS if d in info.domains)
        doing = {"init": "place objects with", "cost": "evaluate"}.get(block, "score")
        ctx.report(
            "RSB213",
            f"the rsb simulator cannot {doing} {info.name!r} ({names}) in :{block}; "
            f"valid choices there: {', '.join(sorted(valid))}",
            atom.span,
        )
