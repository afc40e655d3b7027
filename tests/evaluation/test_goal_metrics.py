"""Goal tasks' success per task and suite: Wilson intervals, cost, sources never pooled."""

from __future__ import annotations

import dataclasses

import pytest

from rsb_mj.episodes.goal_episode import GoalEpisode
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.goal_metrics import goal_rates, goal_summary, suite_of
from rsb_mj.evaluation.rollout import episode_record
from rsb_mj.resources import tasks_dir
from rsb_mj.scoring.outcome import Outcome

from .test_metrics import rec

APPLE = str(tasks_dir() / "vla_arena/x/level_0/apple.bddl")
PEAR = str(tasks_dir() / "vla_arena/x/level_1/pear.bddl")
MINE = "my_tasks/bowl.bddl"


def goal(index: int, suite: str, success: bool, cost: float | None = None, **kw):
    """A scored goal record of ``suite`` (a task file), as the rollout writes one."""
    outcome = Outcome(success=success, success_step=9 if success else None, goal_final=success)
    record = episode_record(
        GoalEpisode.seeded(suite, index), "p", outcome, "success" if success else "step_limit",
        10, 600, reason=None if success else "goal not held (On a b: False)",
        goal={"tier": "A0", "semantics": "vla_arena", "objects": "standins",
              "objects_fingerprint": ""},
    )  # fmt: skip
    return dataclasses.replace(record, cost=cost, **kw)


def test_rates_per_task_and_suite_with_wilson_and_mean_cost():
    records = [
        goal(0, APPLE, True, 0.0),
        goal(1, APPLE, True, 2.0),
        goal(2, APPLE, False, 13.0),
        goal(0, PEAR, False),
        goal(1, PEAR, True),
        goal(0, MINE, False),
        dataclasses.replace(
            goal(3, APPLE, False), termination="error", error="x", error_kind="infra"
        ),
        rec(0, grasped=True, success=True),  # a question record: not a goal task's
    ]
    by_task = goal_rates(records)
    assert [(r.group, r.successes, r.episodes) for r in by_task] == [
        ("apple.bddl", 2, 3),
        ("pear.bddl", 1, 2),
        ("bowl.bddl", 0, 1),
    ]
    assert by_task[0].cost == 5.0 and by_task[1].cost is None
    assert by_task[0].cells() == ["2/3", "67 [21, 94]", "5.00"]
    by_suite = goal_rates(records, by="suite")
    assert [(r.group, r.files, r.successes, r.episodes) for r in by_suite] == [
        ("vla-arena", 2, 3, 5),
        ("files", 1, 0, 1),
    ]
    text = goal_summary(records)
    assert "| apple.bddl | A0 | p | 2/3 | 67 [21, 94] | 5.00 |" in text
    assert "| pear.bddl | A0 | p | 1/2 | 50 [9, 91] | - |" in text
    assert "| vla-arena | 2 | p | 3/5 | 60 [23, 88] | 5.00 |" in text
    assert text.endswith(
        "LIBERO/VLA-Arena layouts on Aloha: not comparable with published LIBERO/VLA-Arena numbers"
    )


def test_a_suite_is_the_shipped_folder_holding_the_file():
    assert suite_of(str(tasks_dir() / "libero/libero_10/a.bddl")) == "libero-layouts"
    assert suite_of(APPLE) == "vla-arena"
    assert suite_of(MINE) == "files"
    assert suite_of("vla-arena::vla_arena/a/level_0/x.bddl") == "vla-arena"  # a table row's


def test_one_file_has_no_suite_table_and_sources_are_never_pooled():
    assert "| suite |" not in goal_summary([goal(0, APPLE, True)])
    mixed = [goal(0, APPLE, True), dataclasses.replace(goal(1, APPLE, True), objects="assets:ab")]
    with pytest.raises(EvalError, match="not pooled: assets:ab, standins"):
        goal_summary(mixed)
    with pytest.raises(EvalError, match="valid choices: task, suite"):
        goal_rates([], by="tier")


def _run_dir(path, records):
    from rsb_mj.evaluation.records import append_record

    path.mkdir()
    for r in records:
        append_record(path / "episodes.jsonl", r)
    return path


def test_rsb_report_on_goal_runs_writes_the_tables_per_task_and_suite(tmp_path, capsys):
    from rsb_mj.cli import main

    records = [
        goal(0, APPLE, True, 1.0),
        goal(1, APPLE, False, 3.0),
        goal(0, PEAR, True),
    ]
    records = [dataclasses.replace(r, policy="expert") for r in records]
    run = _run_dir(tmp_path / "run", records)
    assert main(["report", str(run), "--no-plots"]) == 0
    text = (run / "report" / "report.md").read_text()
    assert (
        "| apple.bddl | A0   | expert | 1/2     | 50 [9, 91]      | 2.00         | 0      |" in text
    )
    assert (
        "| vla-arena | 2     | expert | 2/3     | 67 [21, 94]     | 2.00         | 0      |" in text
    )
    assert "Objects: standins" in text and "Confusion" not in text
    assert "not comparable with published LIBERO/VLA-Arena numbers" in text
    assert (run / "report" / "goal_tasks.csv").read_text().splitlines()[1] == (
        'apple.bddl,A0,expert,1/2,"50 [9, 91]",2.00,0'
    )
    capsys.readouterr()


def test_rsb_report_refuses_goal_runs_of_two_object_sources_and_bad_goal_records(tmp_path, capsys):
    from rsb_mj.cli import main

    ok = goal(0, APPLE, True)
    a = _run_dir(tmp_path / "a", [ok])
    b = _run_dir(tmp_path / "b", [dataclasses.replace(ok, objects="assets:0123")])
    assert main(["report", str(a), str(b), "--stdout"]) == 2
    assert "not pooled: assets:0123, standins" in capsys.readouterr().err
    bad = dataclasses.replace(ok, termination="step_limit", failure_class="grasp")
    c = _run_dir(tmp_path / "c", [bad])
    assert main(["report", str(c), "--stdout"]) == 2
    err = capsys.readouterr().err
    assert f"{c / 'episodes.jsonl'}:1: success is true but termination is 'step_limit'" in err
    assert "failure_class 'grasp' with success true" in err


def test_an_ablated_instruction_is_rated_apart_from_the_original():
    records = [goal(0, APPLE, True), goal(1, APPLE, True),
               dataclasses.replace(goal(0, APPLE, False), variant="blank")]  # fmt: skip
    rates = goal_rates(records)
    assert [(r.policy, r.successes, r.episodes) for r in rates] == [
        ("p", 2, 2),
        ("p [blank]", 0, 1),
    ]
