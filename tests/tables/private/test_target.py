"""What a private table is drawn for (rsb_mj.tables.private.target): a suite or a task
file, its seed label, table file, family and reserve, and the target a manifest entry names."""

from __future__ import annotations

import pytest

from rsb_mj.errors import EpisodeError, RsbError
from rsb_mj.tables.private.target import SPLIT, Target, file_of, target_of

TASK = "tasks/examples/geography_6.bddl"


def test_a_suite_target_is_keyed_by_the_suite_and_draws_from_its_reserve():
    target = Target.of("A2A-Color")
    assert (target.name, target.label, target.file) == (
        "A2A-Color",
        "A2A-Color",
        "A2A-Color.eval.jsonl",
    )
    assert target.family.name == "a2a" and target.suite is not None
    assert (target.source.name, target.source.size()) == ("a2a_color", 113)
    level = Target.of("RSB-Math-4-L1")
    assert (level.label, level.file, level.family.name) == (
        "RSB-Math-4-L1",
        "RSB-Math-4-L1.eval.jsonl",
        "rsb",
    )
    assert (level.suite.level, level.suite.base) == (1, "RSB-Math-4")


def test_a_task_file_target_is_keyed_by_its_file_name_and_drawn_by_the_rsb_family():
    target = Target.of(TASK)
    assert (target.name, target.suite, target.label, target.file) == (
        TASK,
        None,
        "geography_6.bddl",
        "geography_6.eval.jsonl",
    )
    assert target.family.name == "rsb" and target.problem.path.endswith("geography_6.bddl")
    assert (target.source.name, target.source.size()) == ("file", 10)
    with pytest.raises(EpisodeError) as err:
        Target.of("tasks/examples/missing.bddl")
    assert str(err.value) == "task file 'tasks/examples/missing.bddl' not found"
    with pytest.raises(RsbError, match="unknown suite 'RSB-Nope'; valid choices: RSB-Math-4, "):
        Target.of("RSB-Nope")


def test_file_of_and_target_of_name_the_table_of_an_eval_source_and_of_an_entry():
    assert SPLIT == "eval"
    assert file_of("RSB-Math-4") == "RSB-Math-4.eval.jsonl"
    assert file_of("some/where/my_task.bddl") == "my_task.eval.jsonl"
    assert target_of({"suite": "RSB-Math-4", "task": "rsb_math_4.bddl"}) == Target.of("RSB-Math-4")
    assert target_of({"suite": "", "task": TASK}) == Target(TASK, None)
