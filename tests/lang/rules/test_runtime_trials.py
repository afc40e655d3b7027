"""Trial layouts (:mod:`rsb_mj.lang.rules.runtime_trials`): every shipped task places its
candidates, and its static distractors around them, in the first few trial layouts."""

from __future__ import annotations

import pytest

from rsb_mj.lang import lint_text
from rsb_mj.lang.rules.base import Context
from rsb_mj.lang.rules.runtime_trials import distractor_trials, layout_trials

from .shipped_tasks import SOURCES


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_shipped_task_runs_and_places_in_the_trials(name):
    problem, diagnostics = lint_text(SOURCES[name], name)
    assert problem is not None and diagnostics == []
    successes, trials = layout_trials(Context(problem, name))
    assert successes == 2 and trials <= 4
    around = distractor_trials(Context(problem, name))
    assert around is None or (around[0] == 2 and around[1] <= 4)
