"""Fixtures for scene tests: hand-built task problems (independent of the parser)."""

from __future__ import annotations

import pytest

from rsb_mj.lang.ast import Atom, Layout, Name, Problem, Question, Rect, Region, TypedName

LETTERS10 = "abcdefghik"


def make_problem(
    n: int = 4,
    category: str = "letter_block",
    candidates: tuple[float, float, float, float] = (-0.25, -0.1, 0.25, 0.02),
    zone: tuple[float, float, float, float] = (-0.06, 0.1, 0.06, 0.22),
    min_spacing: float = 0.07,
) -> Problem:
    """A task like tasks/rsb_math_4.bddl with ``n`` candidates of ``category``."""
    names = [f"obj_{c}" for c in LETTERS10[:n]]
    return Problem(
        name="test",
        domain="rsb",
        question=Question("arithmetic", n),
        regions=(
            Region("candidates", "table", (Rect(*candidates),)),
            Region("answer_zone", "table", (Rect(*zone),), rgba=(0.5, 0.5, 0.5, 1.0)),
        ),
        fixtures=(TypedName("table", "table"),),
        objects=tuple(TypedName(x, category) for x in names),
        candidate_names=tuple(names),
        init=tuple(Atom("On", (Name(x), Name("table_candidates"))) for x in names),
        layout=Layout(min_spacing, (-0.3, 0.3)),
        path="test.bddl",
    )


@pytest.fixture
def problem_factory():
    """The :func:`make_problem` helper as a fixture."""
    return make_problem
