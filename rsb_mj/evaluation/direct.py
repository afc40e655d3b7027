"""The ``direct`` instruction: the answer itself, in the task's own words.

``rsb eval --instruction direct`` replaces the question with what it asks for: the goal's
placement that binds ``?answer`` (:mod:`rsb_mj.lang.goal`), said with the task's nouns and
what its candidates show (:mod:`rsb_mj.lang.display`), everything else of the episode
unchanged. One reading for every family:

* the mover and the place of the placement, each described: ``?answer`` is the correct
  candidate, told apart as the task's candidates are: by its option letter
  (``letter``: "the block C"), its color (``color``: "the green banana"), or the answer it
  shows (``answer``: "the plate showing 12:00"); a named object by its noun ("the cube");
  a region by its color and name ("the gray answer zone");
* the verb and preposition of the predicate: ``In`` -> "place X in Y", ``On`` -> "put X on
  Y".

So RSB-Math-4's ``(In ?answer table_answer_zone)`` becomes "place the block C in the gray
answer zone." and Act2Answer's ``(On cube ?answer)`` "put the cube on the plate showing
12:00.". It reveals the answer: a *control* that separates knowledge from perception and
control (the semantic gap, :func:`rsb_mj.evaluation.tables.semantic_gap_table`), never a
policy's score.
"""

from __future__ import annotations

from rsb_mj.colors import PALETTE
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.display import display_kind
from rsb_mj.lang.expr import Arg, Name
from rsb_mj.lang.goal import is_answer, placements

#: Predicate -> (verb, preposition) of the sentence.
PHRASES: dict[str, tuple[str, str]] = {"In": ("place", "in"), "On": ("put", "on")}
#: Colors a region's rgba is named by beyond the palette (greys of a drawn patch).
GREYS = {"black": 0.1, "gray": 0.5, "white": 0.95}


def color_word(rgba: tuple[float, ...]) -> str:
    """The nearest color name of ``rgba``: a grey when its channels agree (within 0.05),
    else the nearest palette color (:data:`rsb_mj.colors.PALETTE`)."""
    r, g, b = (float(v) for v in rgba[:3])
    if max(r, g, b) - min(r, g, b) <= 0.05:
        return min(GREYS, key=lambda name: abs(GREYS[name] - (r + g + b) / 3))

    def distance(name: str) -> float:
        pr, pg, pb, _ = PALETTE[name]
        return (pr - r) ** 2 + (pg - g) ** 2 + (pb - b) ** 2

    return min(PALETTE, key=distance)


def _noun(problem: Problem, obj: str) -> str:
    category = problem.category_of(obj)
    info = RSB_CATEGORIES.get(category or "")
    return info.noun if info is not None else (category or obj).replace("_", " ")


def candidate_phrase(problem: Problem, episode: Episode, candidate: str) -> str:
    """How the instruction names ``candidate``: by what tells the task's candidates apart."""
    letter = {obj: letter for letter, obj in episode.mapping.items()}[candidate]
    noun = _noun(problem, candidate)
    kind = display_kind(problem, candidate)
    if kind == "letter":
        return f"the {noun} {letter}"
    if kind == "answer":
        return f"the {noun} showing {episode.options[episode.letters.index(letter)]}"
    return f"the {episode.colors[candidate]} {noun}"


def _phrase(problem: Problem, episode: Episode, arg: Arg) -> str:
    if is_answer(arg):
        return candidate_phrase(problem, episode, episode.target)
    name = arg.value if isinstance(arg, Name) else str(arg)
    if name in episode.mapping.values():
        return candidate_phrase(problem, episode, name)
    regions = {r.full_name: r for r in problem.regions}
    if name in regions:
        region = regions[name]
        words = region.name.replace("_", " ")
        return f"the {color_word(region.rgba)} {words}" if region.rgba else f"the {words}"
    return f"the {_noun(problem, name)}"


def direct_instruction(problem: Problem, episode: Episode) -> str:
    """The ``direct`` instruction of ``episode`` (see the module docstring).

    Raises:
        EvalError: for a task whose ``:goal`` has no placement of ``?answer`` (nothing to
            name).
    """
    for placement in placements(problem):
        if is_answer(placement.mover) or is_answer(placement.place):
            verb, prep = PHRASES.get(placement.predicate, ("put", placement.predicate.lower()))
            mover = _phrase(problem, episode, placement.mover)
            place = _phrase(problem, episode, placement.place)
            return f"{verb} {mover} {prep} {place}."
    raise EvalError(
        f"{problem.path}: instruction mode direct names the goal's placement of ?answer, and "
        "its :goal has none (e.g. (In ?answer table_answer_zone) or (On cube ?answer))"
    )


__all__ = ["PHRASES", "candidate_phrase", "color_word", "direct_instruction"]
