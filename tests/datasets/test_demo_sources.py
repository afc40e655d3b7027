"""What ``rsb demos`` names: goal files and goal suites, or one question source."""

from __future__ import annotations

import pytest

from rsb_mj.datasets.demo_sources import GoalDemos, goal_demos
from rsb_mj.errors import RsbError
from rsb_mj.suites import GOAL_SUITES

GOAL = "tasks/libero/libero_goal/put_the_cream_cheese_in_the_bowl.bddl"


def test_question_sources_are_no_goal_demos():
    # the refusals of goal tasks do not apply: the command checks one question source
    assert goal_demos(["RSB-Math-4"], split="eval", cot=True, n=1, start=0) is None
    assert goal_demos(["RSB-Math-4", "RSB-Math-3"], split="train", cot=False, n=1, start=0) is None


def test_a_goal_file_records_its_seeds():
    assert goal_demos([GOAL, GOAL], split="train", cot=False, n=1, start=0) == GoalDemos(
        sources=(GOAL,), tasks=1, goal_suite=""
    )


def test_a_goal_suite_records_its_files_rows_and_names_the_short_ones():
    demos = goal_demos(["vla-arena", GOAL], split="train", cot=False, n=20, start=0)
    assert demos is not None
    assert demos.sources[0] == GOAL
    assert all(s.startswith("vla-arena::vla_arena/") for s in demos.sources[1:])
    assert demos.tasks == len(demos.sources)
    assert demos.goal_suite == "vla-arena"
    assert demos.skipped and all(": its frozen train table has " in s for s in demos.skipped)


def test_mixed_inputs_and_question_flags_are_refused():
    with pytest.raises(RsbError) as exc:
        goal_demos([GOAL, "RSB-Math-4"], split="train", cot=False, n=1, start=0)
    assert str(exc.value) == (
        f"goal task files and goal suites ({', '.join(GOAL_SUITES)}) are recorded on their "
        "own: give only those, or one question suite; not goal: RSB-Math-4"
    )
    for split, cot in (("eval", False), ("train", True)):
        with pytest.raises(RsbError, match=r"^--split and --cot do not apply to goal tasks"):
            goal_demos([GOAL], split=split, cot=cot, n=1, start=0)
