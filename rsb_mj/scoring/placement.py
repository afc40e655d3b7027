"""What a task's goal moves, and where, once ``?answer`` is bound to a candidate.

The goal's *place* atom (a predicate with ``place = True``: ``In``, ``On``) says where its
subject must end::

    (In ?answer table_answer_zone)   # candidate c moves into the answer zone
    (On cube ?answer)                # the cube moves onto candidate c

:func:`goal_placement` reads it for one candidate: the built-in expert
(:mod:`rsb_mj.expert.pick_place`) picks up :attr:`Placement.mover` and puts it in the answer
zone or on :attr:`Placement.onto`. It reads the same predicate registry the scorer
evaluates, so the expert and the scorer agree on what the goal asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Expr, Name, Variable
from rsb_mj.scoring.expression import atoms
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


def goal_placement(goal: Expr, candidate: str, *, path: str = "<task>") -> Placement:
    """The first place atom of ``goal`` with its variable bound to ``candidate``.

    Raises:
        EvalError: when the goal has no place atom (valid ones listed) or its arguments
            are not names or variables.
    """
    for atom in atoms(goal):
        cls = get_predicate(atom.predicate, where=f"{path}:{atom.span}")
        if not cls.place or not atom.args:
            continue
        mover = _bind(atom.args[0], candidate, path)
        onto = _bind(atom.args[1], candidate, path) if cls.support and len(atom.args) > 1 else None
        return Placement(mover, onto)
    raise EvalError(
        f"{path}: the :goal has no place atom to move anything to; valid choices: "
        "(In ?answer REGION), (On OBJECT ?answer)"
    )


def _bind(arg: object, candidate: str, path: str) -> str:
    if isinstance(arg, Variable):
        return candidate
    if isinstance(arg, Name):
        return arg.value
    raise EvalError(f"{path}: a place atom takes names or variables, got {arg!r}")
