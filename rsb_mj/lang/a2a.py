"""Act2Answer (A2A) words of the task language: pick object, answer plates, sources.

An A2A task (:func:`is_a2a`) asks a binary knowledge question; its candidates are two (or
more) answer plates (category ``answer_plate``), each showing one answer as a picture or as
printed text, and it declares one pick object (category ``pick_cube``) that the robot puts on
the plate of its answer. The blocks read::

    (:question (:source a2a_color) (:choices 2))
    (:objects cube - pick_cube plate_a plate_b - answer_plate)
    (:candidates plate_a plate_b)
    (:grasp (Grasped cube))
    (:goal (And (On cube ?answer) (Released cube)))

``(On cube ?answer)`` is scored as "the cube rests on the chosen plate" and the *choice* is
the first plate the released cube comes to rest on (:mod:`rsb_mj.a2a.scoring`). What a
plate shows comes from the episode (the item's answers), never from the task file.

This module holds only names (no imports of the runtime; the typed AST only), so the linter
and the runtime read the same facts.
"""

from __future__ import annotations

from rsb_mj.lang.ast import Problem

#: Category of the object the robot moves in an A2A task.
PICK_CATEGORY = "pick_cube"
#: Category of an answer plate (a candidate that shows its answer).
PLATE_CATEGORY = "answer_plate"
#: A2A category name (as in the paper, upper case) -> question source id.
A2A_SOURCES: dict[str, str] = {
    "COLOR": "a2a_color",
    "SHAPE": "a2a_shape",
    "COUNTING": "a2a_counting",
    "SIZE": "a2a_size",
    "SPATIAL": "a2a_spatial",
    "TIME": "a2a_time",
    "PHYSICAL": "a2a_physical",
    "BIOLOGICAL": "a2a_biological",
    "QUANTITATIVE": "a2a_quantitative",
    "SOCIAL": "a2a_social",
    "NORMATIVE": "a2a_normative",
    "CULTURAL": "a2a_cultural",
}
#: Choice counts an A2A source serves (binary items; the paper's protocol).
A2A_CHOICES = (2,)


def is_a2a_source(source: str | None) -> bool:
    """True for an A2A question source id (``a2a_color`` ...)."""
    return source in A2A_SOURCES.values()


def is_a2a(problem: Problem) -> bool:
    """True when ``problem`` is an A2A task: its question source is an A2A one, or it
    declares a pick object."""
    if problem.question is not None and is_a2a_source(problem.question.source):
        return True
    return bool(pick_objects(problem))


def pick_objects(problem: Problem) -> tuple[str, ...]:
    """Names of the declared pick objects (``- pick_cube``), in declaration order."""
    return tuple(d.name for d in problem.objects if d.category == PICK_CATEGORY)


__all__ = [
    "A2A_CHOICES",
    "A2A_SOURCES",
    "PICK_CATEGORY",
    "PLATE_CATEGORY",
    "is_a2a",
    "is_a2a_source",
    "pick_objects",
]
