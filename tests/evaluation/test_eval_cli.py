"""rsb eval end to end on the real environment: kill and resume, noop, openpi, expert.

These run real MuJoCo episodes from the frozen eval tables (no cameras for the scripted
policies; short step limits where the policy cannot succeed anyway), about 30 s in all.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from policies.openpi_server import HORIZON, HoldStateServer

from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.evaluation.tables import TERMINAL_FAULTS
from rsb_mj.tables.episode_source import load_episode

ROOT = Path(__file__).resolve().parents[2]


def _eval_cmd(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--policy", "noop",
        "--out", str(out), "--no-progress", *extra,
    ]  # fmt: skip


def test_killed_run_resumes_to_exactly_n_episodes(tmp_path):
    out = tmp_path / "run"
    cmd = _eval_cmd(out, "--episodes", "8", "--max-steps", "60", "--workers", "2")
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    records = out / RECORDS_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if records.exists() and records.read_bytes().count(b"\n") >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()
    killed_at = len(read_records(records))
    assert 2 <= killed_at < 8
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    final = read_records(records)
    assert sorted(r.index for r in final) == list(range(8))
    assert records.read_text().count("\n") == 8  # nothing lost, nothing duplicated
    # noop never grasps: GSR 0, nSG undefined ("-") in the printed table
    assert not any(r.grasped or r.success for r in final)
    assert {r.termination for r in final} == {"step_limit"} and {r.steps for r in final} == {60}
    row = "noop    RSB-Math-4  8    0    0.0  0.0 [0,32]      -  n/a"
    assert row in done.stdout.splitlines(), done.stdout


def test_openpi_policy_end_to_end_on_rendered_observations(tmp_path):
    server = HoldStateServer()
    port = server.start()
    spec = f"openpi:127.0.0.1:{port}:{HORIZON}"
    try:
        config = EvalConfig(
            suites=("RSB-Math-4",), policies=(spec,), episodes=1, out=tmp_path / "run",
            max_steps=HORIZON * 2, progress=False,
        )  # fmt: skip
        (record,) = run_eval(config)
        assert run_eval(config) == [record]  # resumed: nothing rerun
    finally:
        server.stop()
    assert (record.policy, record.steps, record.termination) == (spec, HORIZON * 2, "step_limit")
    assert len(server.seen) == 2  # one query per executed chunk of HORIZON actions
    first = server.seen[0]
    assert first["prompt"] == load_episode("RSB-Math-4", "eval", 0).instruction
    for key in ("cam_high", "cam_left_wrist", "cam_right_wrist"):
        img = first["images"][key]
        assert img.shape == (3, 224, 224) and img.dtype.name == "uint8" and img.std() > 1.0
    assert first["state"].shape == (14,)
    assert not record.grasped


def test_expert_and_random_grasp_on_two_suites_with_two_workers(tmp_path):
    config = EvalConfig(
        suites=("RSB-Math-4", "RSB-Math-10"), policies=("expert", "random-grasp"), episodes=3,
        out=tmp_path / "run", progress=False, workers=2,
    )  # fmt: skip
    records = run_eval(config)
    expert = [r for r in records if r.policy == "expert"]
    assert all(r.success for r in expert), [(r.suite, r.index, r.termination) for r in expert]
    rand = [r for r in records if r.policy == "random-grasp"]
    assert all(r.grasped for r in rand)
    assert all(r.success == (r.choice == r.target) for r in rand)
    keys = ("mujoco", "quality", "control_hz", "timestep", "substeps")
    assert {k: expert[0].sim[k] for k in keys} == {
        "mujoco": "3.8.1",
        "quality": "fast",
        "control_hz": 20,
        "timestep": 0.002,
        "substeps": 25,
    }


def test_the_same_command_gives_the_same_records(tmp_path):
    def once(out):
        config = EvalConfig(
            suites=("RSB-General-10",), policies=("random-grasp",), episodes=2, out=out,
            progress=False,
        )  # fmt: skip
        return [dataclasses.replace(r, wall_s=0.0) for r in run_eval(config)]

    assert once(tmp_path / "a") == once(tmp_path / "b")


def readme_main_job() -> list[str]:
    """The README main job's ``rsb eval`` words: its first ``bash`` block, after ``pip install
    -e . &&``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0].strip()
    install, _, command = block.partition(" && ")
    assert install == "pip install -e .", block
    return shlex.split(command)


def test_the_readme_main_job_is_the_one_the_slow_test_runs():
    from rsb_mj.cli import build_parser

    words = readme_main_job()
    args = build_parser().parse_args(words[1:])
    assert (words[0], args.command, args.suite, args.policy, args.episodes, args.out) == (
        "rsb", "eval", ["all"], ["expert", "random-grasp"], 20, Path("runs/quick"),
    )  # fmt: skip


@pytest.mark.slow
def test_readme_main_job_expert_near_perfect_random_grasp_at_chance(tmp_path):
    """The README main job, as written there (parsed by rsb's parser; run in process, two
    workers, in a temporary folder): expert and random-grasp, 20 episodes on each of the six
    suites."""
    from rsb_mj.cli import build_parser
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.suites import SUITES, expand_suites

    args = build_parser().parse_args(readme_main_job()[1:])
    assert tuple(expand_suites(args.suite)) == tuple(SUITES)
    config = EvalConfig(
        suites=tuple(expand_suites(args.suite)), policies=tuple(args.policy),
        episodes=args.episodes, out=tmp_path / args.out, workers=2, progress=False,
    )  # fmt: skip
    metrics = {(m.policy, m.suite): m for m in summarize(run_eval(config))}
    expert = [m for (p, _), m in metrics.items() if p == "expert"]
    assert sum(m.tsr.k for m in expert) >= 0.99 * sum(m.episodes for m in expert)
    for suite in SUITES:
        rand = metrics[("random-grasp", suite)]
        lo, hi = rand.nsg_interval
        assert rand.gsr.value == 1.0 and lo <= 0.0 <= hi, (suite, rand.nsg, lo, hi)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_on(port: int) -> tuple[HoldStateServer, Any]:
    """A hold-state openpi server on a chosen port (to stop and start it again there)."""
    from websockets.sync.server import serve

    server = HoldStateServer()
    ws = serve(server._handler, "127.0.0.1", port, compression=None, max_size=None)
    threading.Thread(target=ws.serve_forever, daemon=True).start()
    return server, ws


def test_server_down_fails_fast_with_no_record_then_up_completes(tmp_path, capsys):
    from rsb_mj.cli import main
    from rsb_mj.evaluation.metrics import summarize

    port, out = _free_port(), tmp_path / "run"
    spec = f"openpi:127.0.0.1:{port}:{HORIZON}"
    args = [
        "eval", "--suite", "RSB-Math-4", "--policy", spec, "--episodes", "2", "--max-steps",
        str(HORIZON), "--workers", "1", "--out", str(out), "--no-progress",
    ]  # fmt: skip
    t0 = time.monotonic()
    assert main(args) == 2
    assert time.monotonic() - t0 < 10
    err = capsys.readouterr().err
    assert err.startswith(f"rsb eval: error: openpi server ws://127.0.0.1:{port}: cannot connect")
    assert not (out / RECORDS_FILE).exists()
    server, ws = _serve_on(port)
    try:
        assert main(args) == 0
    finally:
        ws.shutdown()
    (m,) = summarize(read_records(out / RECORDS_FILE))
    assert (m.policy, m.episodes, m.errors) == (spec, 2, 0)
    assert len(server.seen) == 2


def test_a_run_stopped_before_its_first_episode_fixes_no_settings(tmp_path, capsys):
    # a server that is down fails the start-up check after run.json was written: the folder
    # then held --visual-level 0 and refused the next command's --visual-level 1
    from rsb_mj.cli import main

    out, port = tmp_path / "run", _free_port()
    argv = ["eval", "--suite", "RSB-Math-4", "--episodes", "1", "--max-steps", "3", "--workers",
            "1", "--no-progress", "--out", str(out)]  # fmt: skip
    down = [*argv, "--policy", f"openpi:127.0.0.1:{port}", "--connect-timeout", "0.5"]
    assert main(down) == 2
    assert capsys.readouterr().err.startswith(
        f"rsb eval: error: openpi server ws://127.0.0.1:{port}: cannot connect"
    )
    assert not out.exists()  # the folder it created is gone
    out.mkdir()
    assert main(down) == 2
    assert sorted(p.name for p in out.iterdir()) == [".rsb.lock"]  # a folder it found stays
    assert main([*argv, "--policy", "noop", "--visual-level", "1"]) == 0
    capsys.readouterr()
    assert main([*down, "--visual-level", "1"]) == 2  # a started run keeps what it has
    assert "cannot connect" in capsys.readouterr().err
    assert json.loads((out / "run.json").read_text())["visual_level"] == 1
    assert len(read_records(out / RECORDS_FILE)) == 1


def test_a_secret_without_sealed_is_refused(tmp_path, capsys):
    # it ran unsealed and printed 'rsb report OUT --secret-file F', which then refused the
    # run as 'not a sealed run'
    from rsb_mj.cli import main

    secret, out = tmp_path / "secret.txt", tmp_path / "run"
    secret.write_text("x" * 32)
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "1",
            "--secret-file", str(secret), "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"rsb eval: error: --secret-file {secret}: a secret is for sealed runs (--sealed, or "
        "--tables DIR): add --sealed, or drop --secret-file for an ordinary run\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sandbox-bind", "{tmp}/none"], "--sandbox-bind {tmp}/none: no such folder or file"),
        (["--no-sandbox", "--sandbox-gpu"],
         "--sandbox-gpu with --no-sandbox: without the sandbox the policy reaches every file, "
         "the network and the GPU; drop one of them"),
        (["--no-sandbox", "--sandbox-bind", "{tmp}"],
         "--sandbox-bind with --no-sandbox: without the sandbox the policy reaches every "
         "file, the network and the GPU; drop one of them"),
    ],
)  # fmt: skip
def test_sandbox_flags_that_would_do_nothing_are_refused(extra, message, tmp_path, capsys):
    # each was accepted silently: the policy then missed its checkpoint, or ran unconfined
    from rsb_mj.cli import main

    out = tmp_path / "run"
    extra = [e.format(tmp=tmp_path) for e in extra]
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--out", str(out), *extra]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"rsb eval: error: {message.format(tmp=tmp_path)}\n"
    assert not out.exists()


def test_a_policys_own_faults_are_listed_and_scored_not_retried(tmp_path, capsys, monkeypatch):
    from rsb_mj.cli import main

    flag = tmp_path / "fail"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    spec = "evaluation.user_policies:fail_if_flagged"
    args = [
        "eval", "--suite", "RSB-Math-4", "--policy", spec, "--policy", "noop", "--episodes", "2",
        "--max-steps", "2", "--workers", "1", "--out", str(tmp_path / "run"), "--no-progress",
        "--sandbox-bind", str(tmp_path),  # the flag is read from the policy's sandbox
    ]  # fmt: skip
    assert main(args) == 0  # every episode scored
    message = f"PolicyError: policy {spec}: act() raised ConnectionError: lost the GPU"
    out, err = capsys.readouterr()
    assert err == (
        "rsb eval: 2 episodes ended in the policy's own faults, scored as failures (the faults "
        "column):\n"
        f"  {spec} on RSB-Math-4 eval 0 and 1 more: {message}\n"
    )
    header, _, row = out.splitlines()[:3]
    assert header.split() == [
        "policy", "suite", "n", "err", "faults", "GSR", "%", "TSR", "%", "nSG", "%", "vs", "chance"
    ]  # fmt: skip
    assert row.split()[:5] == [spec, "RSB-Math-4", "2", "0", "2"]
    assert TERMINAL_FAULTS in out.splitlines()
    flag.unlink()
    assert main(args) == 0  # nothing rerun: the same faults, listed again
    assert capsys.readouterr().err == err
    assert (tmp_path / "run" / RECORDS_FILE).read_text().count("\n") == 4


def test_control_hz_50_runs_the_expert_at_openpis_rate_and_the_folder_keeps_it(tmp_path, capsys):
    from rsb_mj.cli import main

    out = tmp_path / "run"
    args = [
        "eval", "--suite", "RSB-Math-4", "--policy", "expert", "--episodes", "1", "--workers",
        "1", "--out", str(out), "--no-progress",
    ]  # fmt: skip
    assert main([*args, "--control-hz", "50"]) == 0
    (record,) = read_records(out / RECORDS_FILE)
    assert record.success, record.termination
    assert (record.sim["control_hz"], record.sim["substeps"]) == (50, 10)
    assert record.max_steps == 1000  # the suite's 400 steps at 20 Hz: the same 20 s
    assert 250 < record.steps < 400  # the same motions take 2.5x the steps of 20 Hz
    assert '"control_hz": 50' in (out / "run.json").read_text()
    capsys.readouterr()
    assert main(args) == 2
    assert capsys.readouterr().err.endswith(
        f"{out / 'run.json'}: this run directory holds --control-hz 50; use another --out "
        "for --control-hz 20\n"
    )
    with pytest.raises(SystemExit) as exc:
        main([*args, "--control-hz", "30"])
    assert exc.value.code == 2
    assert "--control-hz: invalid choice: 30 (choose from 20, 50)" in capsys.readouterr().err


def test_a_factory_typo_stops_the_run_at_start_up(tmp_path, capsys, monkeypatch):
    # issue 36: 4 error records, exit 3, and a withheld row for ':mak' in the folder forever
    from rsb_mj.cli import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "examples/my_policy.py:mak"]
    assert main([*argv, "--episodes", "4", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: policy 'examples/my_policy.py:mak': examples/my_policy.py defines no "
        "'mak'; callables that look like factories: make, MyPolicy\n"
    )
    assert not out.exists()


def test_names_log_progress_and_forget(tmp_path, capsys):
    from rsb_mj.cli import main

    out = tmp_path / "run"
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--name", "my noop",
            "--policy", "nearest", "--name", "near", "-n", "2", "-j", "1", "--max-steps", "3",
            "-o", str(out)]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()  # stderr is not a terminal: plain lines
    assert [line.split(",")[0] for line in err] == [
        "rsb eval: 1/4 episodes (25%)",
        "rsb eval: 2/4 episodes (50%)",
        "rsb eval: 3/4 episodes (75%)",
        "rsb eval: 4/4 episodes (100%)",
    ]
    assert "\r" not in "".join(err)
    assert err[-1].endswith(" s; my noop/RSB-Math-4: 0G 0T of 2; near/RSB-Math-4: 0G 0T of 2")
    records = read_records(out / RECORDS_FILE)
    assert [r.policy for r in records] == ["my noop", "near"] * 2
    assert main(["eval", "-o", str(out), "--forget", "near"]) == 0
    assert (
        capsys.readouterr().out == f"rsb eval: forgot 2 records of near in {out / RECORDS_FILE}\n"
    )
    assert [r.policy for r in read_records(out / RECORDS_FILE)] == ["my noop"] * 2
    assert main(["eval", "-o", str(out), "--forget", "near"]) == 2
    assert capsys.readouterr().err == (
        f"rsb eval: error: --forget 'near': {out / RECORDS_FILE} holds no records of it; its "
        "policies: 'my noop'\n"
    )


def test_forget_refuses_a_sealed_run_folder(tmp_path, capsys):
    from rsb_mj.cli import main

    out = tmp_path / "run"
    out.mkdir()
    (out / RECORDS_FILE).write_text('{"policy": "x"}\n')
    (out / "run.json").write_text('{"split": "eval", "sealed": {"key_id": "ab"}}')
    assert main(["eval", "-o", str(out), "--forget", "x"]) == 2
    assert "is a sealed run, whose records are signed as one chain" in capsys.readouterr().err
    assert (out / RECORDS_FILE).read_text() == '{"policy": "x"}\n'
