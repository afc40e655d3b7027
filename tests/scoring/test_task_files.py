"""Every shipped task file's :grasp and :goal can be scored."""

from pathlib import Path

import pytest

from rsb_mj.a2a.scoring import A2AScorer
from rsb_mj.lang import load_task
from rsb_mj.resources import tasks_dir
from rsb_mj.scoring import EpisodeScorer

TASKS = sorted(tasks_dir().glob("*.bddl"))


def test_the_six_suite_files_are_there():
    assert {p.name for p in TASKS} >= {
        "rsb_math_4.bddl", "rsb_math_10.bddl", "rsb_hardmath_4.bddl", "rsb_hardmath_10.bddl",
        "rsb_general_4.bddl", "rsb_general_10.bddl",
    }  # fmt: skip


@pytest.mark.parametrize("path", TASKS, ids=[p.name for p in TASKS])
def test_task_scores_with_an_existential_grasp_and_a_bound_goal(path: Path):
    problem = load_task(path)
    scorer = EpisodeScorer.for_problem(problem, problem.candidates, problem.candidates[-1])
    if isinstance(scorer, A2AScorer):  # Act2Answer: the cube grasped, the plate it rests on
        assert (scorer.pick, scorer.plates) == ("cube", ("plate_a", "plate_b"))
        assert problem.question.choices == 2
        return
    assert scorer.grasp_expr.free_variable == "c"
    assert scorer.goal_expr.free_variable is None  # the goal talks about ?answer only
    assert len(problem.candidates) == problem.question.choices
