"""The run folder (:class:`rsb_mj.evaluation.run_folder.RunFolder`): its ``run.json`` written
once and checked on every resume (a different setting refused with its flag and both values),
its records appended, repaired, read and forgotten, its seal and its lock.

Through ``rsb eval``: a run folder holds one version of each task: a task file, its question
bank or its template file edited between two runs into the same --out is refused, naming the
file; a bank's rows that repeat questions are warned about; a record append that hits
``ulimit -f`` stops the run with one line (a real limit, in a child process) and the run
resumes afterwards. Those episodes run against :mod:`fakes` (no MuJoCo); the task files are
real files.
"""

from __future__ import annotations

import dataclasses
import hashlib
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
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import EpisodeRecord, numbered_records, read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE, RUN_FILE, RunFolder, RunSettings
from rsb_mj.evaluation.runner import EvalConfig, plan, run_eval
from rsb_mj.evaluation.sealed import Seal, sign
from rsb_mj.lang.digest import task_digest
from rsb_mj.lock import LockedError
from rsb_mj.tables.episode_source import Source
from rsb_mj.tables.private.secret import Secret

from .fakes import fake_env_factory, fake_source_episode
from .test_metrics import rec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tasks" / "examples"


@pytest.fixture(autouse=True)
def _fake_rows(monkeypatch):
    monkeypatch.setattr(Source, "episode", fake_source_episode)
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


# ---- RunFolder itself: real files, no episodes ------------------------------------------

MATH = task_digest(ROOT / "tasks" / "rsb_math_4.bddl")
SEAL = Seal(Secret(b"run-folder test secret, 32 bytes!"))


def _rec(index: int, policy: str = "p", **changes) -> EpisodeRecord:
    return dataclasses.replace(rec(index, grasped=True, success=True, policy=policy), **changes)


def _job(index: int, policy: str = "p", max_steps: int = 400) -> Job:
    return Job("RSB-Math-4", "eval", index, policy, max_steps, "")


def test_a_new_folder_gets_its_run_json_with_the_settings_in_order(tmp_path):
    folder = RunFolder(tmp_path / "run")
    assert folder.description() is None and folder.records() == []
    settings = RunSettings("eval", control_hz=50, features="first", feature_modules=("a", "b"))
    with folder.lock("test"):
        folder.prepare(settings, {"RSB-Math-4": MATH})
    written = json.loads((tmp_path / "run" / RUN_FILE).read_text())
    assert list(written) == [
        "split", "visual_level", "language_level", "control_hz", "a2a_start", "features",
        "feature_modules", "versions", "renderer", "tasks",
    ]  # fmt: skip
    assert (written["control_hz"], written["features"], written["feature_modules"]) == (
        50,
        "first",
        ["a", "b"],
    )
    assert written["tasks"] == {"RSB-Math-4": {"sha256": MATH.sha256, "files": dict(MATH.files)}}
    assert RunFolder(tmp_path / "run").description() == written  # read back by a new object
    assert not (tmp_path / "run" / RECORDS_FILE).exists()  # records appear with the first one


def test_private_tables_assets_and_a_seal_are_kept_only_when_asked(tmp_path):
    folder = RunFolder(tmp_path)
    settings = RunSettings(
        "eval", assets="/objs", tables=Path("t"), tables_sha256="ab" * 32, seal_key_id="cd" * 32
    )
    folder.prepare(settings, {})
    written = json.loads(folder.run_file.read_text())
    assert written["assets"] == "/objs" and list(written)[5] == "assets"
    assert (written["tables"], written["sealed"]) == ("ab" * 32, {"key_id": "cd" * 32})
    assert folder.is_sealed()


HELD = RunSettings("eval", features="first", tables=Path("t"), tables_sha256="ab" * 32)
ASKED = [
    ({"split": "train"}, "holds split 'eval'; use another --out for split 'train'"),
    ({"visual_level": 2}, "holds --visual-level 0; use another --out for --visual-level 2"),
    ({"language_level": 1}, "holds --language-level 0; use another --out for --language-level 1"),
    ({"control_hz": 50}, "holds --control-hz 20; use another --out for --control-hz 50"),
    ({"a2a_start": "table"}, "holds --a2a-start held; use another --out for --a2a-start table"),
    ({"assets": "/x"}, "holds --assets ; use another --out for --assets /x"),
    ({"features": ""}, "holds --features first; use another --out for no --features"),
    (
        {"feature_modules": ("m",)},
        "holds --features first; use another --out for --features first --feature-modules m",
    ),
    (
        {"tables": None, "tables_sha256": None},
        f"holds records of private tables {'ab' * 8}; use another --out for the shipped tables",
    ),
    (
        {"tables": Path("u"), "tables_sha256": "ef" * 32},
        f"holds records of private tables {'ab' * 8}; use another --out for --tables u "
        f"(private tables {'ef' * 8})",
    ),
    (
        {"seal_key_id": "cd" * 32},
        f"holds an unsealed run; this command asks a sealed run with key id {'cd' * 6}: use "
        "another --out",
    ),
]


@pytest.mark.parametrize(("changes", "message"), ASKED, ids=[next(iter(c)) for c, _ in ASKED])
def test_a_resume_asking_another_setting_is_refused_with_its_flag_and_both_values(
    tmp_path, changes, message
):
    RunFolder(tmp_path).prepare(HELD, {"RSB-Math-4": MATH})
    before = (tmp_path / RUN_FILE).read_bytes()
    folder = RunFolder(tmp_path)
    folder.prepare(HELD, {"RSB-Math-4": MATH})  # the same settings resume
    with pytest.raises(EvalError) as err:
        folder.prepare(dataclasses.replace(HELD, **changes), {"RSB-Math-4": MATH})
    assert str(err.value) == f"{tmp_path / RUN_FILE}: this run directory {message}"
    assert (tmp_path / RUN_FILE).read_bytes() == before


def test_a_suite_new_to_the_folder_is_added_and_a_changed_one_refused(tmp_path):
    geo = task_digest(EXAMPLES / "geography_6.bddl")
    RunFolder(tmp_path).prepare(RunSettings("eval"), {"RSB-Math-4": MATH})
    RunFolder(tmp_path).prepare(RunSettings("eval"), {"geo": geo})
    assert list(json.loads((tmp_path / RUN_FILE).read_text())["tasks"]) == ["RSB-Math-4", "geo"]
    with pytest.raises(EvalError) as err:
        RunFolder(tmp_path).prepare(RunSettings("eval"), {"geo": MATH})
    assert str(err.value) == (
        f"{tmp_path / RUN_FILE}: the task of geo changed since this run directory started: "
        f"rsb_math_4.bddl differ (task sha256 {geo.sha256[:16]} then, {MATH.sha256[:16]} now); "
        "its records would pool two different tasks; use another --out, or restore the files"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"split": "eval",\n  x}', ":2:3: not a valid run description (Expecting property name"),
        ("[1]", ": not a valid run description (expected an object with a 'split' string)"),
        ('{"split": "eval", "tasks": {"a": 1}}', ": not a valid run description ('tasks' must"),
    ],
)
def test_a_run_json_that_is_not_a_run_description_is_refused_naming_it(tmp_path, text, message):
    (tmp_path / RUN_FILE).write_text(text)
    with pytest.raises(EvalError) as err:
        RunFolder(tmp_path).prepare(RunSettings("eval"), {})
    assert str(err.value).startswith(f"{tmp_path / RUN_FILE}{message}")
    assert "use another --out" in str(err.value)


def test_records_are_appended_repaired_read_and_hashed(tmp_path):
    folder = RunFolder(tmp_path)
    assert folder.records_sha256() == ""
    folder.append(_rec(0))
    folder.append(_rec(1))
    data = folder.records_file.read_bytes()
    assert folder.records_sha256() == hashlib.sha256(data).hexdigest()
    folder.records_file.write_bytes(data + b'{"suite": "RSB-M')  # killed mid-append
    assert [r.index for r in folder.records()] == [0, 1]  # the torn line is not read
    folder.prepare(RunSettings("eval"), {})
    assert folder.records_file.read_bytes() == data  # ... and cut off before a resume
    assert [n for n, _ in folder.numbered_records()] == [1, 2]


def test_resume_keeps_scored_records_and_reruns_errors_and_missing_jobs(tmp_path):
    folder = RunFolder(tmp_path)
    folder.append(_rec(0))
    folder.append(rec(1, grasped=False, success=False, error="boom"))
    held, todo = folder.resume([_job(0), _job(1), _job(2)], {"RSB-Math-4": MATH})
    assert [j.index for j in todo] == [1, 2]
    assert held[_job(1).key].is_error and not held[_job(0).key].is_error


def test_resume_refuses_another_step_limit_and_another_task_naming_both(tmp_path):
    folder = RunFolder(tmp_path)
    folder.append(_rec(0))
    folder.append(_rec(1))
    with pytest.raises(EvalError) as err:
        folder.resume([_job(0, max_steps=200), _job(1, max_steps=200)], {})
    assert str(err.value) == (
        f"{folder.records_file}: 2 of these episodes were run with a step limit of 400, this "
        "command asks 200; use another --out"
    )
    folder.append(_rec(2, sim={"task_sha256": "0" * 64}))
    with pytest.raises(EvalError) as err:
        folder.resume([_job(2)], {"RSB-Math-4": MATH})
    assert str(err.value) == (
        f"{folder.records_file}: records of RSB-Math-4 were run with task sha256 {'0' * 16}; "
        f"the task (rsb_math_4.bddl) is now {MATH.sha256[:16]}; use another --out for the "
        "changed task"
    )


def test_forget_drops_one_policys_lines_and_keeps_the_others_byte_for_byte(tmp_path):
    folder = RunFolder(tmp_path)
    with pytest.raises(EvalError, match=rf"^{tmp_path}: no episodes.jsonl records to forget"):
        folder.forget("p")
    for index, policy in [(0, "p"), (0, "q"), (1, "p")]:
        folder.append(_rec(index, policy))
    q_line = folder.records_file.read_bytes().splitlines(keepends=True)[1]
    assert folder.forget("p") == 2
    assert folder.records_file.read_bytes() == q_line
    with pytest.raises(EvalError) as err:
        folder.forget("p")
    assert str(err.value) == (
        f"--forget 'p': {folder.records_file} holds no records of it; its policies: 'q'"
    )
    folder.run_file.write_text('{"split": "eval", "sealed": {"key_id": "ab"}}')
    with pytest.raises(EvalError, match=r"^--forget 'q': .* is a sealed run, whose records are"):
        RunFolder(tmp_path).forget("q")


def test_a_sealed_folder_is_known_by_its_run_json_or_a_signed_line_and_verified(tmp_path):
    folder = RunFolder(tmp_path)
    folder.append(_rec(0))
    assert not folder.is_sealed()
    folder.check_seal(None)  # an unsealed run needs no secret
    signed = tmp_path / "signed"
    signed.mkdir()
    line, _ = sign(_rec(0), SEAL, "")
    RunFolder(signed).append(_rec(0), line)
    assert RunFolder(signed).is_sealed()  # no run.json: its signed line tells
    with pytest.raises(EvalError) as err:
        RunFolder(signed).check_seal(SEAL)
    assert str(err.value) == (
        f"{signed / RUN_FILE}: the run was sealed with another secret (key id None, this "
        f"secret's {SEAL.key_id[:12]})"
    )
    RunFolder(signed).prepare(RunSettings("eval", seal_key_id=SEAL.key_id), {})
    RunFolder(signed).check_seal(SEAL)
    with pytest.raises(EvalError, match=r"a sealed run; its records are verified with the"):
        RunFolder(signed).check_seal(None)
    data = (signed / RECORDS_FILE).read_text()
    (signed / RECORDS_FILE).write_text(data.replace('"index": 0', '"index": 7'))
    with pytest.raises(EvalError, match=rf"^{signed / RECORDS_FILE}:1: the record's signature"):
        RunFolder(signed).check_seal(SEAL)


def test_the_lock_refuses_a_second_writer_until_released(tmp_path):
    folder = RunFolder(tmp_path / "new")
    with folder.lock("rsb eval"), pytest.raises(LockedError, match=r"in use by rsb eval \(pid "):
        RunFolder(tmp_path / "new").lock("rsb eval")
    RunFolder(tmp_path / "new").lock("rsb eval").release()


def test_allow_root_reaches_spawned_workers_as_an_argument(tmp_path, monkeypatch):
    from rsb_mj.lang.files import ALLOW_ROOTS_ENV

    monkeypatch.delenv(ALLOW_ROOTS_ENV, raising=False)
    shared = tmp_path / "shared"
    _task(shared)
    folder = tmp_path / "task"
    folder.mkdir()
    task = folder / "geo_6.bddl"
    text = (shared / "geography_6.bddl").read_text()
    task.write_text(text.replace('"geography.jsonl"', '"../shared/geography.jsonl"'))
    config = dataclasses.replace(
        _config(tmp_path / "run", str(task)), workers=2, allow_roots=(shared,)
    )
    jobs = plan(config)
    assert {job.allow_roots for job in jobs} == {(str(shared.resolve()),)}
    records = run_eval(config, env_factory=fake_env_factory)
    # each episode's row was drawn from the outside bank in a spawned worker, which got the
    # root from its job: nothing was set in the environment for it to inherit
    assert [(r.index, r.termination, r.error) for r in records] == [
        (0, "success", None),
        (1, "success", None),
    ]
    assert ALLOW_ROOTS_ENV not in os.environ
