"""A run folder holds one version of each task: a task file, its question bank or its template
file edited between two runs into the same --out is refused, naming the file; a bank's rows
that repeat questions are warned about; a record append that hits ``ulimit -f`` stops the run
with one line (a real limit, in a child process) and the run resumes afterwards.

Episodes run against :mod:`fakes` (no MuJoCo); the task files are real files.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation import worker
from rsb_mj.evaluation.records import RECORDS_FILE, numbered_records, read_records
from rsb_mj.evaluation.runner import RUN_FILE, EvalConfig, run_eval
from rsb_mj.lang.digest import task_digest

from .fakes import fake_env_factory, make_episode

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tasks" / "examples"


@pytest.fixture(autouse=True)
def _fake_rows(monkeypatch):
    monkeypatch.setattr(worker, "load_episode", make_episode)
    yield
    worker.close_all()


def _task(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("geography_6.bddl", "geography.jsonl"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder / "geography_6.bddl"


def _config(out: Path, *suites: str, episodes: int = 2) -> EvalConfig:
    return EvalConfig(
        suites=suites, policies=("inprocess:evaluation.fakes:oracle",), episodes=episodes, out=out,
        progress=False,
    )  # fmt: skip


def test_run_json_keeps_each_tasks_digest_and_its_files(tmp_path):
    task = _task(tmp_path / "task")
    run_eval(_config(tmp_path / "run", str(task), "RSB-Math-4"), env_factory=fake_env_factory)
    held = json.loads((tmp_path / "run" / RUN_FILE).read_text())["tasks"]
    digest = task_digest(task)
    assert held[str(task)] == {"sha256": digest.sha256, "files": dict(digest.files)}
    assert set(held["RSB-Math-4"]["files"]) == {"rsb_math_4.bddl"}


EDITS = {
    "geography.jsonl": ("What is the capital of Peru?", "Which city is the capital of Peru?"),
    "geography_6.bddl": ("; geography_6: a six-choice", "; geography_6: a 6-choice"),
}


@pytest.mark.parametrize("edited", sorted(EDITS))
def test_an_edited_bank_or_task_file_is_refused_naming_the_file(tmp_path, edited):
    task = _task(tmp_path / "task")
    config = _config(tmp_path / "run", str(task))
    run_eval(config, env_factory=fake_env_factory)
    before = task_digest(task).sha256
    path = task.parent / edited
    old, new = EDITS[edited]
    original = path.read_text(encoding="utf-8")
    assert old in original
    path.write_text(original.replace(old, new), encoding="utf-8")
    with pytest.raises(EvalError) as err:
        run_eval(config, env_factory=fake_env_factory)
    assert str(err.value) == (
        f"{tmp_path / 'run' / RUN_FILE}: the task of {task} changed since this run directory "
        f"started: {edited} differ (task sha256 {before[:16]} then, "
        f"{task_digest(task).sha256[:16]} now); its records would pool two different tasks; "
        "use another --out, or restore the files"
    )
    assert len(read_records(tmp_path / "run" / RECORDS_FILE)) == 2  # nothing was added
    path.write_text(original, encoding="utf-8")
    assert len(run_eval(config, env_factory=fake_env_factory)) == 2  # restored: resumes


def test_a_suite_added_to_a_folder_is_recorded_and_old_folders_are_checked_by_records(tmp_path):
    task = _task(tmp_path / "task")
    out = tmp_path / "run"
    run_eval(_config(out, "RSB-Math-4"), env_factory=fake_env_factory)
    run_eval(_config(out, "RSB-Math-4", str(task)), env_factory=fake_env_factory)
    assert set(json.loads((out / RUN_FILE).read_text())["tasks"]) == {"RSB-Math-4", str(task)}
    # A folder from before run.json kept digests: its records' digests are compared.
    description = json.loads((out / RUN_FILE).read_text())
    del description["tasks"]
    (out / RUN_FILE).write_text(json.dumps(description))
    lines = (out / RECORDS_FILE).read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        row["sim"] = {"task_sha256": "0" * 64}
    (out / RECORDS_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(EvalError, match=r"records of RSB-Math-4 were run with task sha256 0{16}; "):
        run_eval(_config(out, "RSB-Math-4"), env_factory=fake_env_factory)


def test_rows_of_a_small_bank_that_repeat_questions_are_warned_about(tmp_path, capsys):
    task = _task(tmp_path / "task")
    run_eval(_config(tmp_path / "run", str(task), episodes=10), env_factory=fake_env_factory)
    err = capsys.readouterr().err
    assert (
        f"rsb eval: warning: {task}: 10 eval episodes draw 7 distinct questions of the 10 in "
        "the eval split of geography.jsonl (each row draws its question independently, so "
        "questions repeat; a larger bank repeats less)"
    ) in err
    run_eval(_config(tmp_path / "run2", str(task), episodes=2), env_factory=fake_env_factory)
    assert "warning" not in capsys.readouterr().err  # two rows, two questions


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # bytes; a record is ~900


def test_a_record_append_past_ulimit_f_stops_with_one_line_and_the_run_resumes(tmp_path):
    out = tmp_path / "run"
    argv = [
        sys.executable, "-m", "tests.evaluation.fake_eval", "eval", "--suite", "RSB-Math-4",
        "--policy", "inprocess:evaluation.fakes:oracle", "--episodes", "8", "--workers", "1",
        "--out", str(out), "--no-progress",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    limited = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        preexec_fn=_limit_file_size,
    )  # fmt: skip
    kept = len(numbered_records(out / RECORDS_FILE))
    assert limited.returncode == 2, limited.stderr
    assert limited.stderr.splitlines()[-1] == (
        f"rsb eval: error: {out / RECORDS_FILE}: cannot append a record (File too large); the "
        f"{kept} records before it are kept: make room and rerun the same command to resume"
    )
    assert 0 < kept < 8 and "Traceback" not in limited.stderr
    assert (out / RECORDS_FILE).read_bytes().endswith(b"\n")  # the part written was cut off
    resumed = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    records = numbered_records(out / RECORDS_FILE)
    assert len(records) == 8 and len({r.key for _, r in records}) == 8


def test_a_torn_last_line_left_by_a_kill_is_cut_on_resume(tmp_path):
    config = _config(tmp_path / "run", "RSB-Math-4", episodes=3)
    run_eval(config, env_factory=fake_env_factory)
    path = tmp_path / "run" / RECORDS_FILE
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]) + lines[2][:40])  # killed mid-append
    assert len(run_eval(config, env_factory=fake_env_factory)) == 3
    assert len(numbered_records(path)) == 3 and path.read_bytes().endswith(b"\n")


def test_a_malformed_tasks_entry_in_run_json_is_refused(tmp_path):
    config = _config(tmp_path / "run", "RSB-Math-4")
    run_eval(config, env_factory=fake_env_factory)
    description = json.loads((tmp_path / "run" / RUN_FILE).read_text())
    description["tasks"] = {"RSB-Math-4": "e4aab5"}
    (tmp_path / "run" / RUN_FILE).write_text(json.dumps(description))
    with pytest.raises(EvalError, match=r"run.json: not a valid run description \('tasks' must"):
        run_eval(config, env_factory=fake_env_factory)


def test_eval_reads_a_bank_outside_the_task_folder_only_under_allow_root(
    tmp_path, monkeypatch, capsys
):
    from rsb_mj.cli import main
    from rsb_mj.evaluation import runner

    monkeypatch.setattr(runner, "configured_env_factory", lambda config: fake_env_factory)
    shared = tmp_path / "shared"
    _task(shared)
    folder = tmp_path / "task"
    folder.mkdir()
    task = folder / "geo_6.bddl"
    text = (
        (shared / "geography_6.bddl")
        .read_text()
        .replace('"geography.jsonl"', '"../shared/geography.jsonl"')
    )
    task.write_text(text)
    argv = ["eval", str(task), "--policy", "inprocess:evaluation.fakes:oracle", "--episodes", "1"]
    argv += ["--workers", "1", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    assert "RSB470 referenced-file-outside: question bank '../shared/geography.jsonl'" in (
        capsys.readouterr().err
    )
    assert main([*argv, "--allow-root", str(shared)]) == 0
    assert len(read_records(tmp_path / "run" / RECORDS_FILE)) == 1
