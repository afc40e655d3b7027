"""How a task's candidates show their options: the display kind of each candidate. Pure Python.

A candidate's category says it (:attr:`rsb_mj.lang.categories.CategoryInfo.display`):
``letter`` (the option letter on the object), ``color`` (only its color, which the
instruction names) or ``answer`` (the option's answer itself, a picture or printed text:
``answer_plate``). One reading for the sampler (which templates, which colors), the scene
(:mod:`rsb_mj.scene.display`: what to draw) and the linter (RSB455, RSB463).
"""

from __future__ import annotations

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.categories import RSB_CATEGORIES

#: The display kinds.
DISPLAY_KINDS = ("letter", "color", "answer")


def display_kind(problem: Problem, obj: str) -> str:
    """The display kind of candidate ``obj`` (``color`` for an object of a category the rsb
    scene does not build, or one ``problem`` does not declare)."""
    category = next((d.category for d in problem.objects if d.name == obj), None)
    info = RSB_CATEGORIES.get(category or "")
    return info.display if info is not None else "color"


def answer_candidates(problem: Problem) -> tuple[str, ...]:
    """The candidates of ``problem`` that show their answers, in candidate order."""
    return tuple(c for c in problem.candidates if display_kind(problem, c) == "answer")


def shows_answers(problem: Problem) -> bool:
    """True when every candidate of ``problem`` shows its option's answer (answer plates):
    the instruction then neither lists the options nor maps them to candidates."""
    shown = answer_candidates(problem)
    return bool(shown) and len(shown) == len(problem.candidates)


__all__ = ["DISPLAY_KINDS", "answer_candidates", "display_kind", "shows_answers"]
