"""Metrics: Wilson intervals, nSG, chance margin, per-suite summaries and confusion; goal
tasks' success per task and suite: Wilson intervals, cost, sources never pooled."""

import dataclasses
import math

import pytest

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.metrics import (
    chance_margin,
    chance_verdict,
    confusion,
    goal_rates,
    goal_summary,
    goal_tables,
    nsg,
    source_suite_of,
    suite_metrics,
    suite_of,
    summarize,
    wilson,
)
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import episode_record
from rsb_mj.resources import tasks_dir
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.suites import ALL_SUITES


def rec(
    index,
    *,
    grasped,
    success,
    choice_letter=None,
    correct="A",
    suite="RSB-Math-4",
    policy="p",
    error=None,
    max_steps=400,
    privileged=False,
    choices=None,
):
    """A consistent record (``choices``: the suite's own by default, else 4)."""
    mapping = {"A": "block_a", "B": "block_b", "C": "block_c", "D": "block_d"}
    termination = "error" if error else "success" if success else "step_limit"
    if choices is None:
        choices = ALL_SUITES[suite].choices if suite in ALL_SUITES else 4
    return EpisodeRecord(
        suite=suite, split="eval", index=index, seed=index, policy=policy, task="t.bddl",
        question_id="q", template_id="t", choices=choices, correct=correct,
        target=mapping[correct],
        choice=mapping.get(choice_letter), chosen_option=choice_letter,
        grasped_candidates=[mapping[choice_letter]] if choice_letter else [], in_zone=[],
        grasp_step=3 if grasped else None, success_step=9 if success else None,
        grasped=grasped, correct_choice=bool(grasped and choice_letter == correct),
        success=success, goal_final=success, termination=termination, steps=10,
        max_steps=max_steps, wall_s=0.1, privileged=privileged, error=error,
        error_kind="infra" if error else None,
        sim={"quality": "fast", "control_hz": 20, "mujoco": "3.8.1"},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [(5, 10, 0.2366, 0.7634), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (0, 0, 0.0, 1.0)],
)
def test_wilson_matches_published_values(k, n, lo, hi):
    assert wilson(k, n) == pytest.approx((lo, hi), abs=1e-4)


def test_nsg_formula_and_undefined_without_grasps():
    assert nsg(0.25, 1.0, 4) == pytest.approx(0.0)
    assert nsg(0.5, 0.5, 10) == pytest.approx(1.0)
    assert nsg(0.1, 0.5, 10) == pytest.approx((0.2 - 0.1) / 0.9)
    assert nsg(0.0, 0.8, 4) == pytest.approx(-1 / 3)
    assert nsg(0.0, 0.0, 4) is None


def test_chance_margin_is_act2answers_delta():
    assert chance_margin(300) == pytest.approx(1.96 * math.sqrt(0.25 / 300))
    assert round(chance_margin(300), 3) == 0.057 and round(chance_margin(140), 3) == 0.083
    assert chance_verdict(0.62, 300) == "above"
    assert chance_verdict(0.55, 300) == "within"
    assert chance_verdict(0.40, 300) == "below"


def test_suite_metrics_counts_rates_and_nsg_interval():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(1, grasped=True, success=False, choice_letter="B"),
        rec(2, grasped=True, success=False, choice_letter="A"),  # right choice, not placed
        rec(3, grasped=False, success=False),
    ]
    m = suite_metrics(records)
    assert (m.episodes, m.gsr.k, m.tsr.k, m.success_per_grasp.n, m.selection.k) == (4, 3, 1, 3, 2)
    assert (m.errors, m.privileged) == (0, False)
    assert m.nsg == pytest.approx((1 / 3 - 0.25) / 0.75)
    lo, hi = wilson(1, 3)
    assert m.nsg_interval == pytest.approx(((lo - 0.25) / 0.75, (hi - 0.25) / 0.75))


def test_error_episodes_are_counted_apart_and_excluded_from_every_rate():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(1, grasped=False, success=False, error="InfraError: ws://127.0.0.1:9 refused"),
        rec(2, grasped=False, success=False),
    ]
    m = suite_metrics(records)
    assert (m.episodes, m.errors, m.gsr.k, m.gsr.n, m.tsr.k, m.tsr.n) == (2, 1, 1, 2, 1, 2)
    assert m.error_rate == pytest.approx(1 / 3)
    assert confusion(records, 4)[0] == [1, 0, 0, 0, 1]  # the error episode is not a "none"


def test_records_run_with_different_step_limits_are_not_pooled():
    records = [
        rec(0, grasped=False, success=False),
        rec(1, grasped=False, success=False, max_steps=1000),
    ]
    with pytest.raises(
        EvalError,
        match=r"records of p on RSB-Math-4 were run with different settings \(max_steps 400 vs "
        r"1000\); they cannot be pooled",
    ):
        summarize(records)


def test_no_grasp_leaves_nsg_undefined():
    m = suite_metrics([rec(0, grasped=False, success=False)])
    assert (m.gsr.value, m.nsg, m.nsg_interval, m.chance_verdict) == (0.0, None, None, "n/a")


def test_summarize_groups_by_policy_and_suite_in_order():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A", policy="x"),
        rec(0, grasped=False, success=False, policy="y", suite="RSB-Math-10"),
        rec(1, grasped=True, success=True, choice_letter="A", policy="x"),
    ]
    assert [(m.policy, m.suite, m.episodes) for m in summarize(records)] == [
        ("x", "RSB-Math-4", 2),
        ("y", "RSB-Math-10", 1),
    ]


def test_confusion_rows_are_correct_columns_chosen_then_none():
    records = [
        rec(0, grasped=True, success=True, choice_letter="A", correct="A"),
        rec(1, grasped=True, success=False, choice_letter="C", correct="B"),
        rec(2, grasped=False, success=False, correct="B"),
    ]
    assert confusion(records, 4) == [
        [1, 0, 0, 0, 0],
        [0, 0, 1, 0, 1],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
    ]


def _variant(r, variant, **changes):
    import dataclasses

    return dataclasses.replace(r, variant=variant, **changes)


def test_counterfactual_pairs_give_consistency_sensitivity_and_stuck_rate():
    from rsb_mj.evaluation.metrics import pair_metrics

    a = rec(0, grasped=True, success=True, choice_letter="A")  # right on both
    a_twin = _variant(rec(0, grasped=True, success=True, choice_letter="B", correct="B"), "cf")
    b = rec(1, grasped=True, success=False, choice_letter="C")  # stuck on C
    b_twin = _variant(rec(1, grasped=True, success=False, choice_letter="C", correct="B"), "cf")
    c = rec(2, grasped=False, success=False)  # no grasp in the original
    c_twin = _variant(rec(2, grasped=True, success=False, choice_letter="A", correct="B"), "cf")
    lone = rec(3, grasped=True, success=True, choice_letter="A")  # no twin: not a pair
    records = [a, b, c, lone] + [_variant(t, "counterfactual") for t in (a_twin, b_twin, c_twin)]
    (m,) = pair_metrics(records)
    assert (m.pairs, m.consistency.k, m.consistency.n) == (3, 1, 3)
    assert (m.sensitivity.k, m.sensitivity.n, m.stuck.k, m.stuck.n) == (1, 2, 1, 2)
    assert m.random_consistency == 1 / 16


def test_ablation_rows_sit_beside_the_original_with_the_drop_interval():
    from rsb_mj.evaluation.metrics import difference_interval
    from rsb_mj.evaluation.tables import ablation_table

    original = [rec(i, grasped=True, success=i < 8, choice_letter="A") for i in range(10)]
    blank = [
        _variant(rec(i, grasped=True, success=i < 3, choice_letter="A"), "blank") for i in range(10)
    ]
    rows = ablation_table(summarize(original + blank))
    assert rows[0][:3] == ["policy", "suite", "instruction"]
    assert rows[1][:7] == [
        "p", "RSB-Math-4", "blank", "10", "30.0 [10.8, 60.3]", "80.0 [49.0, 94.3]",
        "50.0 [6.6, 74.0]",
    ]  # fmt: skip
    lo, hi = difference_interval(summarize(original)[0].tsr, summarize(blank)[0].tsr)
    # Newcombe: 0.5 -+ sqrt((0.8-0.490)^2 + (0.603-0.3)^2), sqrt((0.943-0.8)^2 + (0.3-0.108)^2)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (6.6, 74.0)


APPLE = str(tasks_dir() / "vla_arena/x/level_0/apple.bddl")
PEAR = str(tasks_dir() / "vla_arena/x/level_1/pear.bddl")
MINE = "my_tasks/bowl.bddl"


def goal(index: int, suite: str, success: bool, cost: float | None = None, **kw):
    """A scored goal record of ``suite`` (a task file), as the rollout writes one."""
    outcome = Outcome(success=success, success_step=9 if success else None, goal_final=success)
    record = episode_record(
        Episode.seeded(suite, index), "p", outcome, "success" if success else "step_limit",
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
    assert suite_of(str(tasks_dir() / "libero/libero_10/a.bddl")) == "libero"
    assert suite_of(APPLE) == "vla-arena"
    assert suite_of(MINE) == "files"
    assert suite_of("vla-arena::vla_arena/a/level_0/x.bddl") == "vla-arena"  # a table row's


def test_rates_per_libero_and_vla_arena_suite_in_the_sources_order():
    """A goal row source or a shipped file by path is rated under its LIBERO / VLA-Arena
    suite (the name --suite takes), whatever table owns its rows; a user's file under none."""
    spatial = "libero::libero/libero_spatial/a.bddl"
    records = [
        goal(0, APPLE, True),  # tasks/vla_arena/x/...: no VLA-Arena suite is called x
        goal(0, "vla-arena::vla_arena/long_horizon/level_0/b.bddl", True),
        goal(0, "libero::libero/libero_goal/c.bddl", False),
        goal(1, "libero::libero/libero_goal/c.bddl", True),
        goal(0, spatial, True),
        goal(0, str(tasks_dir() / "libero/libero_goal/d.bddl"), True),
        goal(0, MINE, True),
    ]
    rates = goal_rates(records, by="source_suite")
    assert [(r.group, r.files, r.successes, r.episodes) for r in rates] == [
        ("libero-spatial", 1, 1, 1),
        ("libero-goal", 2, 2, 3),
        ("long-horizon", 1, 1, 1),
    ]
    assert source_suite_of(spatial) == "libero-spatial" and source_suite_of(MINE) is None
    text = goal_summary(records)
    assert "| libero-goal | 2 | A0 | p | 2/3 | 67 [21, 94] | - |" in text
    one = goal_summary(records[2:4])
    assert "| source suite |" not in one  # one suite: the suite table says it all
    assert goal_tables(records)[2][1] == ["libero-spatial", "1", "A0", "p", "1/1",
                                          "100 [21, 100]", "-", "0"]  # fmt: skip


def test_one_file_has_no_suite_table_and_sources_are_never_pooled():
    assert "| suite |" not in goal_summary([goal(0, APPLE, True)])
    mixed = [goal(0, APPLE, True), dataclasses.replace(goal(1, APPLE, True), objects="assets:ab")]
    with pytest.raises(EvalError, match="not pooled: assets:ab, standins"):
        goal_summary(mixed)
    with pytest.raises(EvalError, match="valid choices: task, suite, source_suite"):
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
