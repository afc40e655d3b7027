"""Shared fixtures: task problems for the episode tests.

``suite_problem(name)`` parses the suite's real task file when the task-language parser is
available; ``make_problem`` builds the same problem from AST nodes (the rsb_math_4 layout), so
the episode tests do not depend on the parser.
"""

from __future__ import annotations

import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.lang.ast import Problem, Rect, Region, TypedName
from rsb_mj.lang.blocks import Instruction, Layout, OptionMap, Question, TemplateChoice
from rsb_mj.lang.expr import And, Atom, Name, Variable

#: The six suites' instruction block: seen templates for train, unseen ones for eval.
PER_SPLIT = Instruction(None, (TemplateChoice("train", "seen"), TemplateChoice("eval", "unseen")))


def make_problem(
    source: str = "arithmetic",
    choices: int = 4,
    category: str = "letter_block",
    templates: str | None = None,
    path: str = "rsb_test.bddl",
) -> Problem:
    """A problem like the suite task files: ``choices`` candidates in ``table_candidates``."""
    names = tuple(f"obj_{letter.lower()}" for letter in LETTERS[choices])
    width = 0.25 if choices == 4 else 0.30
    return Problem(
        name="rsb_test",
        domain="rsb",
        question=Question(source, choices),
        instruction=Instruction(templates) if templates else PER_SPLIT,
        regions=(
            Region("candidates", "table", (Rect(-width, -0.14, width, 0.04),)),
            Region(
                "answer_zone", "table", (Rect(-0.06, 0.1, 0.06, 0.22),), rgba=(0.5, 0.5, 0.5, 1)
            ),
        ),
        fixtures=(TypedName("table", "table"),),
        objects=tuple(TypedName(n, category) for n in names),
        candidate_names=names,
        options=OptionMap("shuffle"),
        init=tuple(Atom("On", (Name(n), Name("table_candidates"))) for n in names),
        grasp_terms=(Atom("Grasped", (Variable("c", "candidate"),)),),
        goal_terms=(
            And(
                (
                    Atom("In", (Variable("answer"), Name("table_answer_zone"))),
                    Atom("Released", (Variable("answer"),)),
                )
            ),
        ),
        layout=Layout(0.07, (-0.3, 0.3)),
        path=path,
    )


@pytest.fixture
def problem4() -> Problem:
    return make_problem("arithmetic", 4)


@pytest.fixture
def problem10() -> Problem:
    return make_problem("arithmetic", 10)
