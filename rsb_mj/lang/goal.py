"""What a task's goal moves and where: its *placements*, read from ``:goal``. Pure Python.

The task names what moves; ``?answer`` binds the candidate of the correct option. A
placement is a goal atom of a scoreable predicate with an object and a place
(:data:`rsb_mj.lang.predicates.RSB_SCOREABLE`, arguments ``("object", "place")``):

* ``(In ?answer table_answer_zone)``: the chosen candidate moves, into the answer zone (RSB);
* ``(On cube ?answer)``: the cube moves, onto the chosen candidate (Act2Answer).

The *mover* of a placement is its first argument, the *place* its second. A named mover
(``cube``) is an object of the task that is neither a candidate nor a distractor: the scene
leaves it where ``:init`` puts it (:func:`rsb_mj.lang.placement.distractor_names`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Arg, Atom, Name, Variable, walk_atoms
from rsb_mj.lang.predicates import PREDICATES, RSB_SCOREABLE

#: The variable the episode binds to the candidate of the correct option.
ANSWER_VARIABLE = "answer"
#: Argument kinds of a placement predicate.
PLACEMENT_ARGS = ("object", "place")


@dataclass(frozen=True)
class Placement:
    """One placement of the goal.

    Attributes:
        predicate: its canonical name (``"In"``, ``"On"``).
        mover: the first argument (``?answer``, a candidate, or a named object).
        place: the second argument (a region, ``?answer`` or a candidate).
        atom: the goal atom it was read from (for positions).
    """

    predicate: str
    mover: Arg
    place: Arg
    atom: Atom


def is_answer(arg: Arg) -> bool:
    """True for ``?answer``."""
    return isinstance(arg, Variable) and arg.name == ANSWER_VARIABLE


def is_placement_predicate(name: str) -> bool:
    """True for a scoreable predicate that puts an object somewhere (``In``, ``On``)."""
    info = PREDICATES.get(name.lower())
    return info is not None and info.name in RSB_SCOREABLE and info.args == PLACEMENT_ARGS


def placements(problem: Problem) -> tuple[Placement, ...]:
    """The placements of ``problem``'s goal, in source order."""
    out = []
    for term in problem.goal_terms:
        for atom in walk_atoms(term):
            if is_placement_predicate(atom.predicate) and len(atom.args) == 2:
                info = PREDICATES[atom.predicate.lower()]
                out.append(Placement(info.name, atom.args[0], atom.args[1], atom))
    return tuple(out)


def named_movers(problem: Problem) -> tuple[str, ...]:
    """Names of the non-candidate objects a goal placement moves (``("cube",)`` for
    ``(On cube ?answer)``), in declaration order; ``()`` when the goal moves the chosen
    candidate (``(In ?answer ZONE)``)."""
    candidates = set(problem.candidates)
    moved = {
        p.mover.value
        for p in placements(problem)
        if isinstance(p.mover, Name) and p.mover.value not in candidates
    }
    return tuple(d.name for d in problem.objects if d.name in moved)


__all__ = [
    "ANSWER_VARIABLE",
    "Placement",
    "is_answer",
    "is_placement_predicate",
    "named_movers",
    "placements",
]
