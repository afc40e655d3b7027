"""What ``rsb eval``'s arguments name, decided in the evaluation stage
(:mod:`rsb_mj.evaluation.run_sources`), not by the command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.run_sources import goal_run, question_sources
from rsb_mj.suites import A2A_SUITES

DATA = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = str(
    DATA
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
QUESTION_FILE = str(Path(__file__).resolve().parents[2] / "tasks" / "rsb_math_4_objects.bddl")


def test_question_sources_are_no_goal_run_and_expand_their_groups():
    assert goal_run([QUESTION_FILE], ["RSB-Math-4"], split="eval", episodes=None, start=0) is None
    given = ["a2a", "RSB-Math-4", "a2a"]
    assert question_sources(["./x/../t.bddl"], given) == (*A2A_SUITES, "RSB-Math-4", "t.bddl")
    with pytest.raises(EvalError, match=r"^'t.txt': a task file ends in \.bddl; name suites"):
        question_sources(["t.txt"], [])


def test_a_goal_file_is_a_goal_run_of_ten_seeds_unless_told():
    run = goal_run([APPLE, APPLE], [], split="eval", episodes=None, start=0)
    assert run is not None
    assert (run.sources, run.episodes, run.skipped) == ((os.path.normpath(APPLE),), 10, ())
    assert goal_run([APPLE], [], split="eval", episodes=3, start=7).episodes == 3


def test_goal_and_question_sources_do_not_mix_and_goal_ones_have_no_private_tables():
    with pytest.raises(EvalError, match="run on their own: .* goal ones given: " + APPLE):
        goal_run([APPLE, QUESTION_FILE], [], split="eval", episodes=2, start=0)
    with pytest.raises(EvalError, match=r"^--tables priv: the goal task file .* no private draw"):
        goal_run([APPLE], [], split="eval", episodes=2, start=0, tables=Path("priv"))
    with pytest.raises(EvalError, match=r"^--start 5: the .* eval table has 5 rows per task"):
        goal_run([], ["vla-arena-l0"], split="eval", episodes=None, start=5)


def test_a_suite_none_of_whose_files_can_run_is_refused_with_each_reason():
    """VLA-Arena's preposition suite: its 15 files' tables are short (three named tomatoes,
    bowls and a board over 0.8-1.0 m hold a tomato under rule 1's 150 px), so the run is
    refused with each file and the way to run one, not "name at least one --suite"."""
    name = "generalization-object-preposition-combinations"
    with pytest.raises(EvalError) as caught:
        goal_run([], [name], split="eval", episodes=2, start=1)
    lines = str(caught.value).splitlines()
    assert lines[0] == (
        f"--suite {name}: none of its files has the eval rows asked (1..2); each named with why:"
    )
    assert len(lines) == 17
    assert all(": its frozen eval table has 0 rows (0 of 5 rows: " in x for x in lines[1:16])
    assert sum("rule 1: tomato_" in x for x in lines[1:16]) == 15
    assert lines[16] == (
        "run a file by its path (rsb eval FILE.bddl) to draw its layouts from seeds, not the "
        "frozen table"
    )
