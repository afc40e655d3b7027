"""Sealed runs against the five attacks of issue 34 (hostile policy files of hostile.py), on
a private draw: the answer key, rsb's memory and the run's records stay out of reach, no
process a policy started outlives the run, a policy's own faults are its failures, the
records are signed and a rewritten one is refused by ``rsb report``; and the same attacks
without the sandbox, to show they are real."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EvalError, PolicyError
from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.runner import EvalConfig, plan, run_eval
from rsb_mj.evaluation.sealed import Seal, sealed_order, sign, verify
from rsb_mj.evaluation.tables import terminal_table
from rsb_mj.policies import sandbox
from rsb_mj.policies.sandbox import available
from rsb_mj.policies.spec import make_policy
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.secret import Secret

ROOT = Path(__file__).resolve().parents[2]
SECRET = b"issue-34 sealed test secret, 32+ bytes long"
H = "evaluation.hostile"
#: What the key reader finds in the sandbox: no rsb process, an empty folder, /dev/null.
KEY_READER = "rsb seen: 0; tables: read 0 bytes of 0 files; secret: refused (PermissionError)"
ATTACKS = ("key_reader", "forger", "memory_reader", "outcome_reader", "raiser", "hanger")

pytestmark = pytest.mark.skipif(
    available() is not None, reason=f"the sandbox is unavailable: {available()}"
)


@pytest.fixture(scope="module")
def draw(tmp_path_factory):
    """A private RSB-Math-4 draw of 4 rows and its secret file, in one folder."""
    root = tmp_path_factory.mktemp("sealed")
    (root / "secret.txt").write_bytes(SECRET + b"\n")
    (root / "secret.txt").chmod(0o600)
    build_private(["RSB-Math-4"], Secret(SECRET), root / "tables", rows=4)
    return root


def _alive_with(mark: str) -> list[int]:
    """Host pids whose command line holds ``mark``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if mark.encode() in fh.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _hostile_env(root: Path, out: Path, mark: str) -> dict[str, str]:
    return {
        "HOSTILE_TABLES": str(root / "tables"),
        "HOSTILE_SECRET": str(root / "secret.txt"),
        "HOSTILE_RECORDS": str(out / RECORDS_FILE),
        "HOSTILE_MARK": mark,
    }


@pytest.fixture(scope="module")
def attacked(draw):
    """A sealed run of every attack (one episode each, 3 steps), the run folder beside the
    tables and the secret, that folder bound into the sandbox (so hiding them is tested)."""
    out, mark = draw / "run", f"hostile-{uuid.uuid4().hex}"
    held = dict(os.environ)
    os.environ.update(_hostile_env(draw, out, mark))
    sys.path.insert(0, str(ROOT / "tests"))
    config = EvalConfig(
        suites=("RSB-Math-4",),
        policies=tuple(f"{H}:{a}" for a in ATTACKS),
        episodes=1,
        out=out,
        workers=1,
        max_steps=3,
        progress=False,
        request_timeout_s=4.0,
        tables=draw / "tables",
        secret_file=draw / "secret.txt",
        sandbox_binds=(draw,),
    )
    try:
        records = run_eval(config)
        ended_at = time.monotonic()
    finally:
        sys.path.remove(str(ROOT / "tests"))
        os.environ.clear()
        os.environ.update(held)
    return {"records": records, "out": out, "mark": mark, "config": config, "ended": ended_at}


def _texts(records, attack: str) -> list[str | None]:
    return [r.text for r in records if r.policy == f"{H}:{attack}"]


def test_the_answer_key_and_the_secret_are_out_of_reach(attacked):
    # attack 1: no rsb process in sight; the tables folder and the secret read as empty
    assert _texts(attacked["records"], "key_reader") == [KEY_READER]


def test_no_process_a_policy_started_outlives_the_run_and_no_record_is_forged(attacked):
    # attack 2: the double-forked setsid daemon ended with the sandbox, before run_eval
    # returned; it could not even see the records while it lived
    assert _alive_with(attacked["mark"]) == []
    assert _texts(attacked["records"], "forger") == [
        "daemon running: True; records: refused (FileNotFoundError)"
    ]
    time.sleep(0.3)  # a daemon would rewrite the file every 50 ms
    path = attacked["out"] / RECORDS_FILE
    verify(path, Seal.read(attacked["config"].secret_file))
    assert not any(r.success for r in read_records(path))


def test_rsbs_memory_is_out_of_sight(attacked):
    # attack 3: a PID namespace of its own: no other process to read
    assert _texts(attacked["records"], "memory_reader") == ["processes in sight: 0; memory read: 0"]


def test_the_runs_own_records_are_out_of_reach(attacked):
    # attack 4 (the records half; the length half: tests/evaluation/test_sealed_pace.py)
    assert _texts(attacked["records"], "outcome_reader") == ["records: refused (FileNotFoundError)"]


def test_a_policys_own_faults_are_its_failures(attacked):
    # attack 5: raising or hanging does not excuse an episode: scored, failed, not retried
    faults = [r for r in attacked["records"] if r.policy in (f"{H}:raiser", f"{H}:hanger")]
    assert [(r.termination, r.success, r.is_error) for r in faults] == [
        ("policy_fault", False, False)
    ] * 2
    assert sorted(r.error for r in faults) == [
        f"PolicyError: policy {H}:hanger: act(): no answer within 4 s",
        f"PolicyError: policy {H}:raiser: act() raised RuntimeError: about to fail: excused?",
    ]
    assert not [r for r in attacked["records"] if r.is_error]  # zero infrastructure errors
    table = terminal_table(summarize(attacked["records"]))  # what rsb eval prints
    assert table[0][:5] == ["policy", "suite", "n", "err", "faults"]
    assert [row[2:5] for row in table if row[0] == f"{H}:raiser"] == [["1", "0", "1"]]


def test_episodes_run_in_the_secret_order_and_every_record_is_signed(attacked):
    config, out = attacked["config"], attacked["out"]
    lines = [json.loads(line) for line in (out / RECORDS_FILE).read_text().splitlines()]
    seal = Seal.read(config.secret_file)
    expected = sealed_order(plan(config), seal)
    assert [(r["index"], r["policy"]) for r in lines] == [(j.index, j.policy) for j in expected]
    assert [(j.index, j.policy) for j in expected] != [(j.index, j.policy) for j in plan(config)]
    assert all(len(r["signature"]) == 64 for r in lines)
    run = json.loads((out / "run.json").read_text())
    assert run["sealed"] == {"key_id": seal.key_id}


def test_rsb_report_verifies_the_records_and_refuses_a_rewritten_one(attacked, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(attacked["out"], run)
    secret = str(attacked["config"].secret_file)
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 0
    report = capsys.readouterr().out
    # the policy's own faults: failures in the rates, and a column of their own
    header = next(line for line in report.splitlines() if "policy faults" in line)
    assert [c.strip() for c in header.split("|")][1:6] == [
        "policy", "suite", "n", "errors", "policy faults"
    ]  # fmt: skip
    row = next(line for line in report.splitlines() if line.startswith(f"| {H}:raiser "))
    assert [c.strip() for c in row.split("|")][3:7] == ["1", "0", "1", "0.0 [0.0, 79.3]"]
    assert main(["report", str(run), "--stdout"]) == 2
    assert capsys.readouterr().err == (
        f"rsb report: error: {run}: a sealed run; its records are verified with the secret it "
        "was run with: give --secret-file FILE\n"
    )
    path = run / RECORDS_FILE
    lines = path.read_text().splitlines()
    # a signed error record left over (a crash outside the policy): the row is withheld
    seal = Seal.read(attacked["config"].secret_file)
    held = next(r for r in read_records(path) if r.policy == f"{H}:key_reader")
    crash = dataclasses.replace(held, index=3, termination="error", error_kind="infra",
                                error="InfraError: env.step failed: boom")  # fmt: skip
    line, _ = sign(crash, seal, verify(path, seal))
    path.write_text(path.read_text() + line + "\n")
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 0
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(f"| {H}:key_r"))
    assert [c.strip() for c in row.split("|")][3:6] == ["1", "1", "0"]  # n, errors, faults
    assert "withheld" in row
    path.write_text("\n".join(lines) + "\n")
    row = json.loads(lines[2])
    row.update(success=True, correct_choice=True, termination="success")
    path.write_text("\n".join([*lines[:2], json.dumps(row, sort_keys=True), *lines[3:]]) + "\n")
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 2
    assert capsys.readouterr().err == (
        f"rsb report: error: {path}:3: the record's signature does not match: it was edited, "
        "moved or removed lines before it, or comes from another run or secret; the run "
        "cannot be reported\n"
    )
    path.write_text("\n".join(lines[:2] + lines[3:]) + "\n")  # a line removed
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 2
    assert f"{path}:3: the record's signature does not match" in capsys.readouterr().err
    other = tmp_path / "other.txt"
    other.write_bytes(b"another secret of at least 16 bytes")
    other.chmod(0o600)
    assert main(["report", str(run), "--stdout", "--secret-file", str(other)]) == 2
    assert "the run was sealed with another secret" in capsys.readouterr().err


def test_without_the_sandbox_the_attacks_are_real(draw, tmp_path, monkeypatch):
    """The same policy files, unsealed and unsandboxed, on the shipped tables: they read the
    private folder, the secret and another run's records."""
    out = tmp_path / "run"
    for key, value in _hostile_env(draw, draw / "run", "unused").items():
        monkeypatch.setenv(key, value)
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    config = EvalConfig(
        ("RSB-Math-4",), (f"{H}:key_reader", f"{H}:outcome_reader"), 1, out, workers=1,
        max_steps=2, progress=False, sandbox=False,
    )  # fmt: skip
    with pytest.warns(RuntimeWarning, match="runs without a sandbox"):
        records = run_eval(config)
    key, outcome = (r.text for r in records)
    tables = sum(p.stat().st_size for p in (draw / "tables").iterdir())
    secret = (draw / "secret.txt").stat().st_size
    assert key.endswith(f"tables: read {tables} bytes of 2 files; secret: read {secret} bytes")
    assert outcome.startswith("records: ") and outcome != "records: 0 targets"


def test_a_sealed_run_refuses_what_it_cannot_keep_sealed(draw, tmp_path):
    tables, secret = draw / "tables", draw / "secret.txt"

    def config(**kw):
        return EvalConfig(("RSB-Math-4",), kw.pop("policies", ("noop",)), 1, tmp_path / "r", **kw)

    with pytest.raises(EvalError) as err:
        config(tables=tables)
    assert str(err.value) == (
        "a sealed run (implied by --tables) orders its episodes and signs its records with the "
        "private secret: give --secret-file FILE (the one the tables were drawn from)"
    )
    with pytest.raises(EvalError, match=r"^--no-sandbox: a sealed run \(--sealed\) runs policy"):
        config(sealed=True, secret_file=secret, sandbox=False)
    config(sealed=True, secret_file=secret, policies=("lerobot:ckpt",))  # runs sandboxed
    with pytest.raises(EvalError, match=r"runs an in-process policy .* only alone"):
        config(sealed=True, secret_file=secret, policies=("inprocess:a.b:c", "noop"))
    other = tmp_path / "other.txt"
    other.write_bytes(b"another secret of at least 16 bytes")
    other.chmod(0o600)
    with pytest.raises(EvalError, match=r"not the secret the tables in .* were drawn from"):
        run_eval(config(tables=tables, secret_file=other))


def test_a_lerobot_checkpoint_runs_in_the_sandbox_in_a_sealed_run(tmp_path, monkeypatch):
    """In a sealed run a ``lerobot:`` checkpoint is built in a sandboxed policy process (its
    folder bound read-only), with the convention its dataset names read by rsb and handed
    on: here the build fails in that process, which has no lerobot (tests/lerobot_venv runs
    a real checkpoint)."""
    from policies.test_lerobot import write_checkpoint

    ckpt = write_checkpoint(
        tmp_path / "ckpt", dataset=tmp_path / "ds", info={"rsb_convention": {"name": "rsb"}}
    )
    monkeypatch.setenv(sandbox.ENV_VAR, sandbox.Sandbox(sealed=True).to_json())
    with pytest.raises(PolicyError) as err:
        make_policy(f"lerobot:{ckpt}")
    assert str(err.value).startswith(f"policy lerobot:{ckpt},convention=rsb: building it failed")
    assert "lerobot is not installed in this Python" in str(err.value)
    monkeypatch.setenv(sandbox.ENV_VAR, sandbox.Sandbox(sealed=False).to_json())
    with pytest.raises(EvalError, match="lerobot is not installed in this Python"):
        make_policy(f"lerobot:{ckpt}")  # an ordinary run builds it in rsb's process


#: ``setpriv`` to user and group ``nobody`` without supplementary groups.
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _hidden_python_root() -> Path | None:
    """The folder right under an untraversable ``/root`` that holds this Python (e.g.
    ``/root/.pyenv``, where pyenv puts it on this machine and on CI), or None."""
    home = Path("/root")
    if os.stat(home).st_mode & 0o001:
        return None
    for path in (Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).resolve()):
        if path.is_relative_to(home) and path != home:
            return home / path.relative_to(home).parts[0]
    return None


def _as_nobody(hold: Path) -> tuple[list[str] | None, str]:
    """The command prefix that runs a command as user ``nobody`` here (root only), and
    why not (None). Where this Python lives under ``/root`` (mode 0700: ``nobody`` cannot
    traverse it), the prefix runs the command in a mount namespace of its own in which
    ``/root`` is an empty tmpfs (mode 0755) holding only a bind mount of that Python's
    folder: nothing on the machine changes (``/root`` stays 0700 outside), and the run
    is still an ordinary user's (``setpriv`` drops every capability with root)."""
    if shutil.which("setpriv") is None:
        return None, "setpriv (util-linux) is not installed"
    prefix = list(AS_NOBODY)
    hidden = _hidden_python_root()
    if hidden is not None:
        if shutil.which("unshare") is None:
            return None, f"{hidden} is under /root (0700) and unshare (util-linux) is missing"
        script = (
            f'mount --bind "{hidden}" "{hold}" && mount -t tmpfs -o mode=0755 tmpfs /root && '
            f'mkdir "{hidden}" && mount --bind "{hold}" "{hidden}" && exec "$@"'
        )
        prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                  *prefix]  # fmt: skip
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import numpy, mujoco, rsb_mj.cli"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    if probe.returncode != 0:
        said = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"user nobody cannot run {sys.executable} with rsb_mj: {said}"
    return prefix, ""


@pytest.mark.slow
def test_the_attacks_fail_as_an_ordinary_user(draw, request):
    """As root the policy keeps no capability (``--cap-drop ALL``); as an ordinary user
    the same run through ``rsb eval`` under ``setpriv --reuid=nobody``."""
    cmd_prefix: list[str] = []
    if os.geteuid() == 0:
        hold = Path(tempfile.mkdtemp(prefix="rsb-python-", dir="/tmp"))
        request.addfinalizer(lambda: hold.rmdir())
        prefix, why = _as_nobody(hold)
        if prefix is None:
            pytest.skip(f"{why} (as an ordinary user this test needs no setpriv)")
        cmd_prefix = prefix
    if os.geteuid() == 0:  # pytest's folders are root's alone: a folder nobody can enter
        work = Path(tempfile.mkdtemp(prefix="rsb-sealed-", dir="/tmp")) / "work"
        work.parent.chmod(0o755)
    else:
        work = Path(tempfile.mkdtemp(prefix="rsb-sealed-")) / "work"
    request.addfinalizer(lambda: shutil.rmtree(work.parent, ignore_errors=True))
    shutil.copytree(draw / "tables", work / "tables")
    shutil.copy(draw / "secret.txt", work / "secret.txt")
    home = work.parent / "home"  # an ordinary user's own home (numba caches there)
    home.mkdir()
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "65534:65534", str(work), str(home)], check=True)
    out, mark = work / "run", f"hostile-{uuid.uuid4().hex}"
    cmd = [*cmd_prefix, sys.executable, "-m",
           "rsb_mj", "eval", "--suite", "RSB-Math-4", "--episodes", "1", "--max-steps", "3",
           "--workers", "2", "--no-progress", "--request-timeout", "4", "--tables",
           str(work / "tables"), "--secret-file", str(work / "secret.txt"), "--out", str(out),
           "--sandbox-bind", str(work)]  # fmt: skip
    for attack in ATTACKS:
        cmd += ["--policy", f"{H}:{attack}"]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "HOME": str(home)}
    env.update(_hostile_env(work, out, mark))
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert _alive_with(mark) == []
    records = read_records(out / RECORDS_FILE)
    texts = {r.policy.rpartition(":")[2]: r.text for r in records}
    assert (
        texts["key_reader"]
        == "rsb seen: 0; tables: read 0 bytes of 0 files; secret: refused (PermissionError)"
    )
    assert texts["memory_reader"] == "processes in sight: 0; memory read: 0"
    assert [r.termination for r in records if r.policy.endswith(("raiser", "hanger"))] == [
        "policy_fault"
    ] * 2
