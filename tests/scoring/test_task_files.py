"""Every shipped task file's :grasp and :goal can be scored, by one of the two choice rules."""

from pathlib import Path

import pytest

from rsb_mj.lang import load_task
from rsb_mj.resources import tasks_dir
from rsb_mj.scoring import EpisodeScorer, signal_plan
from rsb_mj.scoring.outcome import FirstGrasp, FirstPlacement
from rsb_mj.scoring.signals import BASE_SIGNALS

TASKS = sorted(tasks_dir().glob("*.bddl"))
#: What an Act2Answer task's predicates read: the cube's grasp and release, and ``on``.
A2A_SIGNALS = ("contact", "pinch", "table_contact", "gripper_cmd", "gripper_open", "lift", "on")


def test_the_six_suite_files_are_there():
    assert {p.name for p in TASKS} >= {
        "rsb_math_4.bddl", "rsb_math_10.bddl", "rsb_hardmath_4.bddl", "rsb_hardmath_10.bddl",
        "rsb_general_4.bddl", "rsb_general_10.bddl",
    }  # fmt: skip


@pytest.mark.parametrize("path", TASKS, ids=[p.name for p in TASKS])
def test_task_scores_with_the_rule_its_grasp_names(path: Path):
    problem = load_task(path)
    scorer = EpisodeScorer.for_problem(problem, problem.candidates, problem.candidates[-1])
    assert scorer.plan == signal_plan(problem)
    assert scorer.goal_expr.variable == "answer"
    assert len(problem.candidates) == problem.question.choices
    if path.name.startswith("a2a_"):  # the cube moves, onto the answer's plate
        assert isinstance(scorer.rule, FirstPlacement) and scorer.rule.movers == ("cube",)
        assert scorer.grasp_expr.variable is None
        assert (scorer.plan.objects, scorer.plan.names) == (("cube",), A2A_SIGNALS)
        assert problem.candidates == ("plate_a", "plate_b")
        return
    assert isinstance(scorer.rule, FirstGrasp)  # the candidate moves
    assert scorer.grasp_expr.free_variable == "c"
    assert (scorer.plan.objects, scorer.plan.names) == (problem.candidates, BASE_SIGNALS)
