"""Sealed runs against the five attacks of issue 34 and those of issue 45 (rsb's own log,
other run folders, a sandbox that cannot start, cut or swapped records, what the sandbox
shows), hostile policy files of hostile.py, on a private draw: the answer key, rsb's memory,
rsb's log and the run's records stay out of reach, no process a policy started outlives the
run, a policy's own faults are its failures, the records are signed and closed and a
rewritten, cut or swapped file is refused by ``rsb report``; and the same attacks without
the sandbox, to show they are real."""

from __future__ import annotations

import dataclasses
import json
import os
import re
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
from rsb_mj.evaluation.sealed import Seal, closing_line, sealed_order, sign, verify
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
ATTACKS = ("key_reader", "forger", "memory_reader", "outcome_reader", "raiser", "hanger",
           "log_reader", "inspector")  # fmt: skip

pytestmark = pytest.mark.skipif(
    available() is not None, reason=f"the sandbox is unavailable: {available()}"
)


@pytest.fixture(scope="module")
def draw(tmp_path_factory):
    """A private RSB-Math-4 draw of 4 rows and its secret file, in one folder."""
    root = tmp_path_factory.mktemp("sealed")
    root.chmod(0o755)  # as root a sealed policy is user nobody: a bound folder must be readable
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


#: The variables that hand the hostile policies their paths (``--sandbox-env``).
HOSTILE_VARS = ("HOSTILE_TABLES", "HOSTILE_SECRET", "HOSTILE_RECORDS", "HOSTILE_MARK")


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
    os.environ["RSB_OPERATORS_OWN"] = "a variable of rsb's environment: not the policy's"
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
        sandbox_env=HOSTILE_VARS,
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
    nonce = json.loads((attacked["out"] / "run.json").read_text())["sealed"]["nonce"]
    verify(path, Seal.read(attacked["config"].secret_file), nonce)
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
    *lines, closing = [json.loads(x) for x in (out / RECORDS_FILE).read_text().splitlines()]
    seal = Seal.read(config.secret_file)
    run = json.loads((out / "run.json").read_text())
    nonce = run["sealed"]["nonce"]
    assert len(nonce) == 32
    expected = sealed_order(plan(config), seal, nonce)
    assert [(r["index"], r["policy"]) for r in lines] == [(j.index, j.policy) for j in expected]
    assert [(j.index, j.policy) for j in expected] != [(j.index, j.policy) for j in plan(config)]
    assert all(len(r["signature"]) == 64 for r in lines)
    assert run["sealed"]["key_id"] == seal.key_id
    # the closing record: the count, the chain head it follows and the run's nonce, signed
    assert closing["closing"] == {"count": 8, "chain": lines[-1]["signature"], "nonce": nonce}
    assert len(closing["signature"]) == 64


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
    nonce = json.loads((run / "run.json").read_text())["sealed"]["nonce"]
    line, head = sign(crash, seal, verify(path, seal, nonce))
    closing, _ = closing_line(seal, head, len(lines), nonce)  # 8 records, the crash the 9th
    path.write_text(path.read_text() + line + "\n" + closing + "\n")
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


def test_the_sandbox_shows_nobody_a_minimal_environment_and_limits(attacked):
    """Issue 45, item 5: the policy is user nobody (as root: for real, so root's files such
    as /etc/shadow are not its), sees only the documented environment, neither bwrap's
    environment nor its command line names a hidden path, and the process and memory limits
    that fit this machine hold; run.json records that isolation."""
    (text,) = _texts(attacked["records"], "inspector")
    seen = json.loads(text)
    assert seen["uid"][:3] == [sandbox.NOBODY] * 3
    allowed = sorted([*sandbox.BASE_ENV, *HOSTILE_VARS])
    # besides these, only PWD (bwrap's --chdir) and what the packages rsb imports in the
    # policy process set for themselves (rendering defaults, OpenCV's): nothing of rsb's
    assert set(allowed) <= set(seen["env"])
    assert not {"PYTHONPATH", "RSB_OPERATORS_OWN", sandbox.ENV_VAR} & set(seen["env"])
    # bwrap's own environment: root's process (unreadable to nobody), or the same minimal one
    assert seen["first process env"] in (["refused (PermissionError)"], allowed)
    assert seen["hidden paths in bwrap's command line"] == 0
    assert seen["processes"] == sandbox.default_processes()
    assert seen["memory"] == sandbox.default_memory_bytes()
    if os.geteuid() == 0:
        assert seen["shadow"] == "refused (PermissionError)"
        assert seen["uid"][3] == []  # no supplementary group
    isolation = json.loads((attacked["out"] / "run.json").read_text())["sealed"]["isolation"]
    assert isolation == {
        "sandbox": sandbox._bwrap_version(),
        "user": (
            "nobody (65534) on the host"
            if os.geteuid() == 0
            else f"nobody (65534) in a user namespace, uid {os.geteuid()} on the host"
        ),
        "network": "none",
        "gpu": False,
        "memory_bytes": sandbox.default_memory_bytes(),
        "file_bytes": sandbox.DEFAULT_FILE_BYTES,
        "processes": sandbox.default_processes(),
        "binds": [str(attacked["config"].sandbox_binds[0])],
        "env": allowed,
    }
    assert sandbox.default_memory_bytes() <= os.sysconf("SC_PAGE_SIZE") * os.sysconf(
        "SC_PHYS_PAGES"
    )


def _check_log(log: str, records: list, total: int) -> None:
    """rsb's log of a sealed run with :func:`hostile.log_reader` among its policies: the
    policy learnt no outcome from it and could not rewrite it."""
    from evaluation.hostile import FORGED, OUTCOMES

    texts = [r.text for r in records if r.policy == f"{H}:log_reader"]
    assert texts and all(t.startswith("outcome counts: 0; ") for t in texts), texts
    assert OUTCOMES.findall(log.encode()) == []  # progress without G/T: nothing to learn
    progress_lines = [x for x in log.splitlines() if re.match(r"rsb eval: \d+/\d+ episodes", x)]
    assert progress_lines[0].startswith(f"rsb eval: 1/{total} episodes")  # not truncated
    assert progress_lines[-1].startswith(f"rsb eval: {total}/{total} episodes")
    assert re.search(rf"; {H}:\w+/RSB-Math-4: \d+ done", progress_lines[-1])  # no G/T
    forged = [x for x in log.splitlines() if FORGED.splitlines()[1] in x]
    assert forged and all(x.startswith(f"[policy {H}:log_reader] ") for x in forged)


def test_a_policy_learns_nothing_from_rsbs_log(draw, tmp_path):
    """Issue 45, item 1: the operator logs to a file (``> log 2>&1``); the policy's stdout
    and stderr are a pipe of rsb's, so reopening them reads no line of rsb's, and O_TRUNC
    truncates nothing; the progress lines name no outcome; the policy's own lines are
    prefixed."""
    out, log = tmp_path / "run", tmp_path / "rsb.log"
    cmd = [sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--episodes", "4",
           "--max-steps", "3", "--workers", "1", "--tables", str(draw / "tables"),
           "--secret-file", str(draw / "secret.txt"), "--out", str(out),
           "--policy", f"{H}:log_reader", "--policy", f"{H}:key_reader"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    with open(log, "w") as fh:
        done = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                              timeout=600, check=False)  # fmt: skip
    text = log.read_text()
    assert done.returncode == 0, text
    _check_log(text, read_records(out / RECORDS_FILE), 8)


def _write_team_policy(work: Path) -> None:
    """A policy file that looks for the other team's records and the tables in the working
    folder (``runs/``) and says what it found in its ``text``."""
    (work / "submission").mkdir()
    (work / "submission" / "policy.py").write_text(f"""
import os
import numpy as np

WORK = {str(work)!r}


class Peek:
    cameras = ()

    def reset(self, env, obs, info):
        self.hold = np.asarray(obs["state"], dtype=np.float64)
        found = []
        for where in ("runs/teamA/episodes.jsonl", WORK + "/runs/teamA/episodes.jsonl",
                      WORK + "/tables"):
            try:
                found.append(f"{{where}}: {{len(open(where, 'rb').read())}} bytes"
                             if not os.path.isdir(where) else f"{{where}}: {{os.listdir(where)}}")
            except OSError as exc:
                found.append(f"{{where}}: {{type(exc).__name__}}")
        self.text = "; ".join([f"cwd: {{sorted(os.listdir('.'))}}", *found])

    def act(self, obs):
        return self.hold


def make():
    return Peek()


def other():
    return Peek()
""")


@pytest.fixture(scope="module")
def two_teams(draw, tmp_path_factory):
    """Two sealed runs of one policy file from one working folder (issue 45, item 2), into
    ``runs/teamA`` then ``runs/teamB``, the tables and the secret in that folder too."""
    work = tmp_path_factory.mktemp("teams")
    work.chmod(0o755)
    shutil.copytree(draw / "tables", work / "tables")
    shutil.copy(draw / "secret.txt", work / "secret.txt")
    _write_team_policy(work)
    held = os.getcwd()
    os.chdir(work)
    configs = {}
    try:
        for team in ("teamA", "teamB"):
            limits = {"sandbox_memory_bytes": 6 << 30, "sandbox_processes": 256}
            configs[team] = EvalConfig(
                ("RSB-Math-4",), ("submission/policy.py:make", "submission/policy.py:other"),
                4, Path("runs") / team, workers=1, max_steps=2, progress=False,
                tables=Path("tables"), secret_file=Path("secret.txt"),
                **(limits if team == "teamB" else {}),
            )  # fmt: skip
            run_eval(configs[team])
    finally:
        os.chdir(held)
    return work, configs


def test_other_run_folders_are_out_of_sight_and_orders_differ(two_teams, monkeypatch):
    work, configs = two_teams
    monkeypatch.chdir(work)  # the configs name their policy file relative to it
    records = read_records(work / "runs" / "teamB" / RECORDS_FILE)
    assert {r.text for r in records} == {
        f"cwd: ['submission']; runs/teamA/episodes.jsonl: FileNotFoundError; "
        f"{work}/runs/teamA/episodes.jsonl: FileNotFoundError; {work}/tables: "
        "FileNotFoundError"
    }
    # the order: keyed by each run folder's own nonce, so the two runs' orders differ
    seal = Seal.read(work / "secret.txt")
    orders = []
    for team in ("teamA", "teamB"):
        nonce = json.loads((work / "runs" / team / "run.json").read_text())["sealed"]["nonce"]
        lines = (work / "runs" / team / RECORDS_FILE).read_text().splitlines()[:-1]
        order = [(json.loads(x)["index"], json.loads(x)["policy"]) for x in lines]
        jobs = sealed_order(plan(dataclasses.replace(configs[team], out=work / "x")), seal, nonce)
        assert order == [(j.index, j.policy) for j in jobs]
        orders.append(order)
    assert orders[0] != orders[1]  # 8 episodes: the same order by chance 1 time in 40,320
    # the run folder: no other user's (as root, the policy is nobody)
    assert (work / "runs" / "teamB").stat().st_mode & 0o777 == 0o700
    # the same command again: nothing to run, the records already closed: nothing appended
    before = (work / "runs" / "teamA" / RECORDS_FILE).read_bytes()
    run_eval(configs["teamA"])
    assert (work / "runs" / "teamA" / RECORDS_FILE).read_bytes() == before
    # limits given (--sandbox-memory 6 --sandbox-processes 256) are the ones recorded
    isolation = {t: json.loads((work / "runs" / t / "run.json").read_text())["sealed"]
                 ["isolation"] for t in ("teamA", "teamB")}  # fmt: skip
    assert [(i["memory_bytes"], i["processes"]) for i in isolation.values()] == [
        (sandbox.default_memory_bytes(), sandbox.default_processes()),
        (6 << 30, 256),
    ]


def test_rsb_report_refuses_a_cut_file_and_another_runs_file(two_teams, tmp_path, capsys):
    """Issue 45, item 4: the closing record. A file cut after record 5 of 8 is incomplete
    (also what an interrupted run shows), another run's whole file is named as such."""
    work, _ = two_teams
    run = tmp_path / "teamB"
    shutil.copytree(work / "runs" / "teamB", run)
    secret = str(work / "secret.txt")
    path = run / RECORDS_FILE
    lines = path.read_text().splitlines()
    assert len(lines) == 9 and json.loads(lines[-1])["closing"]["count"] == 8
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 0
    capsys.readouterr()
    path.write_text("\n".join(lines[:5]) + "\n")
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 2
    assert capsys.readouterr().err == (
        f"rsb report: error: {path}: incomplete: 5 signed records and no closing record after "
        "the last: the run was interrupted (or the file cut after that record); run the same "
        "rsb eval command again to finish it, then report it\n"
    )
    shutil.copy(work / "runs" / "teamA" / RECORDS_FILE, path)  # team A's records, same secret
    nonce_a = json.loads((work / "runs" / "teamA" / "run.json").read_text())["sealed"]["nonce"]
    nonce_b = json.loads((run / "run.json").read_text())["sealed"]["nonce"]
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 2
    assert capsys.readouterr().err == (
        f"rsb report: error: {path}:9: the records of another run (its closing record names "
        f"nonce {nonce_a[:12]}, this run folder's run.json {nonce_b[:12]}); the run cannot be "
        "reported\n"
    )
    # without its closing record, another run's first line does not chain to this nonce
    path.write_text("\n".join(path.read_text().splitlines()[:-1]) + "\n")
    assert main(["report", str(run), "--stdout", "--secret-file", secret]) == 2
    assert f"{path}:1: the record's signature does not match" in capsys.readouterr().err


def test_a_sandbox_that_cannot_start_stops_a_sealed_run_before_it_records(draw, tmp_path):
    """Issue 45, item 3: root without capabilities (as in some containers): bwrap cannot set
    up its namespaces; the sealed run exits 2 naming why, and records nothing."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv: run as root without capabilities")
    out = tmp_path / "run"
    cmd = ["setpriv", "--bounding-set", "-all", "--inh-caps", "-all", sys.executable, "-m",
           "rsb_mj", "eval", "--suite", "RSB-Math-4", "--episodes", "2", "--max-steps", "2",
           "--workers", "1", "--no-progress", "--tables", str(draw / "tables"),
           "--secret-file", str(draw / "secret.txt"), "--out", str(out),
           "--policy", f"{H}:key_reader"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                          check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"rsb eval: error: policy {H}:key_reader: a sealed run runs policy code only in the "
        "sandbox, and bwrap cannot create namespaces here (bwrap: setting up uid map: "
        "Operation not permitted); nothing was run or recorded\n"
    )
    assert not out.exists()


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
           "--workers", "2", "--request-timeout", "4", "--tables",
           str(work / "tables"), "--secret-file", str(work / "secret.txt"), "--out", str(out),
           "--sandbox-bind", str(work)]  # fmt: skip
    for attack in ATTACKS:
        cmd += ["--policy", f"{H}:{attack}"]
    for name in HOSTILE_VARS:
        cmd += ["--sandbox-env", name]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "HOME": str(home)}
    env.update(_hostile_env(work, out, mark))
    log = work.parent / "rsb.log"  # as an operator runs it: rsb eval ... > log 2>&1
    with open(log, "w") as fh:
        done = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                              timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, log.read_text()
    assert _alive_with(mark) == []
    records = read_records(out / RECORDS_FILE)
    _check_log(log.read_text(), records, len(ATTACKS))
    seen = json.loads(next(r.text for r in records if r.policy == f"{H}:inspector"))
    assert seen["uid"][:3] == [sandbox.NOBODY] * 3 and seen["shadow"].startswith("refused")
    assert seen["hidden paths in bwrap's command line"] == 0
    texts = {r.policy.rpartition(":")[2]: r.text for r in records}
    assert (
        texts["key_reader"]
        == "rsb seen: 0; tables: read 0 bytes of 0 files; secret: refused (PermissionError)"
    )
    assert texts["memory_reader"] == "processes in sight: 0; memory read: 0"
    assert [r.termination for r in records if r.policy.endswith(("raiser", "hanger"))] == [
        "policy_fault"
    ] * 2


def test_the_sandbox_limits_flags_are_checked(tmp_path, capsys):
    base = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "1", "--out",
            str(tmp_path / "run")]  # fmt: skip
    assert main([*base, "--sandbox-memory", "-1"]) == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: --sandbox-memory -1: give GiB >= 0 (0: no limit)\n"
    )
    assert main([*base, "--sandbox-processes", "-5"]) == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: --sandbox-processes -5: give N >= 0 (0: none)\n"
    )
    assert main([*base, "--sandbox-processes", "9", "--no-sandbox"]) == 2
    assert "--sandbox-processes with --no-sandbox" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
