"""What a task's goal moves, and where, once ``?answer`` is bound to a candidate.

The goal's placements (:func:`rsb_mj.lang.goal.placements`: ``In``, ``On``) say where their
mover must end::

    (In ?answer table_answer_zone)   # candidate c moves into the answer zone
    (On cube ?answer)                # the cube moves onto candidate c

:func:`goal_placement` binds the first one to a candidate: the built-in expert
(:mod:`rsb_mj.expert.world`) picks up :attr:`Placement.mover` and puts it in the answer zone
or on :attr:`Placement.onto`. Whether the place is a candidate (a support) or a region is
the scoring predicate's own fact (:attr:`rsb_mj.scoring.Predicate.support`), so the expert
and the scorer agree on what the goal asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Arg, Name, Variable
from rsb_mj.lang.goal import placements
from rsb_mj.scoring.predicates import get_predicate


@dataclass(frozen=True)
class Placement:
    """The goal's place for one candidate.

    Attributes:
        mover: the object to move (the candidate itself, or the object the goal names).
        onto: the candidate to put it on (``On``), or None for the answer zone (``In``).
    """

    mover: str
    onto: str | None = None


def goal_placement(problem: Problem, candidate: str) -> Placement:
    """The first placement of ``problem``'s goal with its variable bound to ``candidate``.

    Raises:
        EvalError: when the goal has no placement (valid ones listed) or its arguments are
            not names or variables.
    """
    for place in placements(problem):
        where = f"{problem.path}:{place.atom.span}"
        mover = _bind(place.mover, candidate, where)
        if get_predicate(place.predicate, where=where).support:
            return Placement(mover, _bind(place.place, candidate, where))
        return Placement(mover)
    raise EvalError(
        f"{problem.path}: the :goal has no place atom to move anything to; valid choices: "
        "(In ?answer REGION), (On OBJECT ?answer)"
    )


def _bind(arg: Arg, candidate: str, where: str) -> str:
    if isinstance(arg, Variable):
        return candidate
    if isinstance(arg, Name):
        return arg.value
    raise EvalError(f"{where}: a place atom takes names or variables, got {arg!r}")
