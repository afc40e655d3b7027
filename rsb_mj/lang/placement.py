"""Which objects of a task the layout sampler places around the candidates, and which of them
are hazards: one definition for the sampler (:func:`rsb_mj.lang.layout.sample_distractors`)
and the linter (RSB501, RSB503). Pure Python.
"""

from __future__ import annotations

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Name, walk_atoms
from rsb_mj.lang.goal import named_movers
from rsb_mj.lang.motion import read_moving_objects


def distractor_names(problem: Problem) -> tuple[str, ...]:
    """The objects of ``problem`` that are neither candidates, nor ``:moving_objects`` (those
    start at their region's center and follow their motion), nor an object the goal moves
    (:func:`rsb_mj.lang.goal.named_movers`: it starts where ``:init`` puts it), in
    declaration order."""
    fixed = set(problem.candidates) | {m.name for m in read_moving_objects(problem)[0]}
    fixed |= set(named_movers(problem))
    return tuple(d.name for d in problem.objects if d.name not in fixed)


def cost_objects(problem: Problem) -> tuple[str, ...]:
    """Declared objects that a ``:cost`` atom names (hazards), in declaration order."""
    named = {
        arg.value
        for expr in problem.cost_terms or ()
        for atom in walk_atoms(expr)
        for arg in atom.args
        if isinstance(arg, Name)
    }
    return tuple(d.name for d in problem.objects if d.name in named)
