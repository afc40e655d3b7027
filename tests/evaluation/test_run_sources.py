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


def test_the_preposition_suite_runs_its_files_with_rows_and_names_the_others():
    """VLA-Arena's preposition suite (issue 44): three named 5.2 cm tomatoes, bowls and a
    board over 0.7-1.0 m, under the tight head camera's floor of rule 1; 12 of its 15 files
    have their 5 eval rows, the 3 others are named with the manifest's reason."""
    name = "generalization-object-preposition-combinations"
    run = goal_run([], [name], split="eval", episodes=5, start=0)
    assert run is not None
    assert (len(run.sources), len(run.skipped)) == (12, 3)
    assert sum("tight head camera" in x for x in run.skipped) == 2
    assert all(": its frozen eval table has " in x for x in run.skipped)


def test_a_suite_none_of_whose_files_can_run_is_refused_with_each_reason(monkeypatch):
    """A suite none of whose files has the rows asked (here a table whose rows are gone:
    ``file_rows`` empty) is refused with each file and the way to run one, not "name at
    least one --suite"; a file the manifest calls short keeps its reason."""
    monkeypatch.setattr("rsb_mj.tables.layouts.file_rows", lambda *a: [])
    name = "generalization-object-preposition-combinations"
    with pytest.raises(EvalError) as caught:
        goal_run([], [name], split="eval", episodes=2, start=1)
    lines = str(caught.value).splitlines()
    assert lines[0] == (
        f"--suite {name}: none of its files has the eval rows asked (1..2); each named with why:"
    )
    assert len(lines) == 17
    assert all(": its frozen eval table has 0 rows (" in x for x in lines[1:16])
    assert sum("(no reason in the manifest)" in x for x in lines[1:16]) == 12
    assert sum("rule 1: tomato_" in x for x in lines[1:16]) == 2
    assert lines[16] == (
        "run a file by its path (rsb eval FILE.bddl) to draw its layouts from seeds, not the "
        "frozen table"
    )
