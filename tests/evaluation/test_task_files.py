"""rsb eval on task files: any lint-clean .bddl, rows drawn from seeds fixed by the file name."""

import hashlib
import json
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.tables.episode_source import TASK_FILE_ROWS, load_episode, row_seed

TASK = "tasks/rsb_math_4_objects.bddl"


def test_a_task_files_rows_are_seeded_draws_named_by_the_path():
    episode = load_episode(TASK, "eval", 3)
    assert (episode.suite, episode.index, episode.split) == (TASK, 3, "eval")
    assert episode.seed == row_seed(TASK, "eval", 3)
    assert load_episode(TASK, "eval", 3) == episode
    with pytest.raises(Exception, match=r"episode index 100000 is outside the rows of"):
        load_episode(TASK, "eval", TASK_FILE_ROWS)


def test_rsb_eval_runs_a_beyond_blocks_task_file_and_reports_its_hash(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", TASK, "--policy", "expert", "--episodes", "2", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "expert (privileged)  tasks/rsb_math_4_objects.bddl  2    0  100.0" in printed
    records = sorted(read_records(out / RECORDS_FILE), key=lambda r: r.index)
    assert [(r.suite, r.index, r.success, r.max_steps) for r in records] == [
        (TASK, 0, True, 400),
        (TASK, 1, True, 400),
    ]
    sha = hashlib.sha256(Path(TASK).read_bytes()).hexdigest()
    assert {r.sim["task_sha256"] for r in records} == {sha}
    assert main(["report", str(out), "--no-plots"]) == 0
    assert f"Tasks: {TASK} (task sha256 {sha[:16]})" in capsys.readouterr().out
    lines = (out / RECORDS_FILE).read_text().splitlines()
    assert {json.loads(line)["task"] for line in lines} == {"rsb_math_4_objects.bddl"}


def test_a_path_that_is_not_a_task_file_is_refused(tmp_path, capsys):
    assert main(["eval", "tasks/nothing.bddl", "--policy", "noop", "--out", str(tmp_path)]) == 2
    assert "task file 'tasks/nothing.bddl' not found" in capsys.readouterr().err
    folder = tmp_path / "x.bddl"  # was 'not found' too
    folder.mkdir()
    assert main(["eval", str(folder), "--policy", "noop", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        f"rsb eval: error: task file '{folder}' is a folder; name the .bddl file in it\n"
    )


@pytest.mark.slow  # two expert episodes, ~35 s
def test_the_safety_task_file_runs_and_reports_its_cost(tmp_path, capsys):
    task = "tasks/rsb_math_4_safety.bddl"
    out = tmp_path / "run"
    argv = ["eval", task, "--policy", "expert", "--episodes", "2", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    header, _, row = capsys.readouterr().out.splitlines()[:3]
    assert header.rstrip(" |").endswith("| vs chance | cost")
    records = read_records(out / RECORDS_FILE)
    assert [sorted(r.cost_terms) for r in records] == [
        [
            "1 (CheckGripperContact cart_1)",
            "2 (CheckGripperDistance cart_1 0.02)",
            "3 (Collide cart_1)",
        ]
    ] * 2
    costs = [r.cost for r in records]
    mean = sum(costs) / 2
    assert row.rstrip(" |").split("|")[-1].strip().startswith(f"{mean:.1f}")
    assert not any(r.cost_implicit_and for r in records)


def test_cost_terms_without_and_all_count_and_the_record_says_so(tmp_path, capsys):
    text = Path("tasks/rsb_math_4.bddl").read_text()
    task = tmp_path / "rsb_costs_4.bddl"
    cost = "(:cost (CheckForce block_a table 0.1) (Up block_b))"
    task.write_text(text.replace("  (:layout", f"  {cost}\n  (:layout"))
    assert main(["lint", str(task)]) == 1  # RSB414 warns: VLA-Arena would keep only the first
    assert "RSB414 cost-without-and" in capsys.readouterr().out
    out = tmp_path / "run"
    argv = ["eval", str(task), "--policy", "noop", "--episodes", "1", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    (record,) = read_records(out / RECORDS_FILE)
    assert record.cost_implicit_and is True
    # the resting block presses on the table every one of the 400 steps; nothing is lifted
    assert record.cost == 400.0
    assert record.cost_terms == {
        "1 (CheckForce block_a table 0.1)": {"kind": "step", "violations": 400, "cost": 400.0},
        "2 (Up block_b)": {"kind": "step", "violations": 0, "cost": 0.0},
    }
