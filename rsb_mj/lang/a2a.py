"""Act2Answer (A2A) names of the task language: its question sources and categories.

An A2A task asks a binary knowledge question; its candidates are answer plates (category
``answer_plate``, which show their option's answer, :mod:`rsb_mj.scene.display`) and its goal
moves a named object onto the chosen one::

    (:question (:source a2a_color) (:choices 2))
    (:objects cube - pick_cube plate_a plate_b - answer_plate)
    (:candidates plate_a plate_b)
    (:grasp (Grasped cube))
    (:goal (And (On cube ?answer) (Released cube)))

Nothing here is special to the pipeline: the sources are question sources
(:mod:`rsb_mj.episodes.sources.act2answer`), the plates a display kind, ``(On cube ?answer)``
a goal placement (:mod:`rsb_mj.lang.goal`), and the general lint rules check every form.
This module holds only names (the typed AST only), so the linter and the runtime read the
same facts.
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
#: Question sources whose questions carry a picture of each answer (``Question.displays``),
#: which candidates that show their answers need (RSB463).
DISPLAY_SOURCES: tuple[str, ...] = tuple(A2A_SOURCES.values())


def is_a2a_source(source: str | None) -> bool:
    """True for an A2A question source id (``a2a_color`` ...)."""
    return source in A2A_SOURCES.values()


def is_a2a(problem: Problem) -> bool:
    """True when ``problem`` draws from an A2A source or declares a pick object."""
    if problem.question is not None and is_a2a_source(problem.question.source):
        return True
    return bool(pick_objects(problem))


def pick_objects(problem: Problem) -> tuple[str, ...]:
    """Names of the declared pick objects (``- pick_cube``), in declaration order."""
    return tuple(d.name for d in problem.objects if d.category == PICK_CATEGORY)


__all__ = [
    "A2A_CHOICES",
    "A2A_SOURCES",
    "DISPLAY_SOURCES",
    "PICK_CATEGORY",
    "PLATE_CATEGORY",
    "is_a2a",
    "is_a2a_source",
    "pick_objects",
]
