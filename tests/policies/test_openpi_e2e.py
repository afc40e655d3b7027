"""Fault injection end to end: ``rsb eval`` (``rsb_mj.cli.main``) against fake openpi servers.

A server that is down, silent or not a websocket server stops the run at its start-up check
(exit 2, one line naming the server, no records). During episodes, what a server answers is
its own (garbage, NaN: scored failures, ``termination == "policy_fault"``) and what happens
to the connection is the network's (no answer in time, dropped: error records, ``"infra"``,
the run finishes with exit 3), except in a sealed run, where both are the server's
(:mod:`rsb_mj.evaluation.faults`); no traceback is printed. A server that restarts mid-run
costs nothing: its episodes are scored. One run holds every mid-run fault (one environment
build).

A hang would never reach an assertion, so ``faulthandler`` ends the test process with every
thread's stack after :data:`HANG_S` seconds.
"""

from __future__ import annotations

import faulthandler
import re
import sys

import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE

from .openpi_server import OBJECT_REPLY, FakeOpenPiServer, PlainTcpServer, free_port

#: A run still going after this many seconds is hung.
HANG_S = 240.0


@pytest.fixture(autouse=True)
def hang_guard():
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


def _eval(out, *specs, extra=()):
    argv = ["eval", "--suite", "RSB-Math-4", "--episodes", "2", "--out", str(out),
            "--workers", "1", "--no-progress", "--max-steps", "6", *extra]  # fmt: skip
    for spec in specs:
        argv += ["--policy", spec]
    return main(argv)


def _start_up_failure(tmp_path, capfd, port, message, extra=()):
    code = _eval(tmp_path / "run", f"openpi:127.0.0.1:{port}:3", extra=extra)
    out, err = capfd.readouterr()
    assert code == 2
    assert err.startswith(f"rsb eval: error: openpi server ws://127.0.0.1:{port}: "), err
    assert re.search(message, err) and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    assert not (tmp_path / "run" / RECORDS_FILE).exists() or not read_records(
        tmp_path / "run" / RECORDS_FILE
    )


def test_a_server_that_is_down_stops_the_run_at_its_start_up_check(tmp_path, capfd):
    port = free_port()
    _start_up_failure(
        tmp_path, capfd, port,
        r"cannot connect after 2 attempt\(s\) in \d+\.\d s \(connect timeout 1 s, request "
        r"timeout 60 s, 3 retries, total limit 1 s\); last: connection refused or reset "
        r"\(Connection refused\)\n$",
        extra=("--connect-timeout", "1"),
    )  # fmt: skip


def test_a_server_that_never_sends_metadata_stops_the_run(tmp_path, capfd):
    srv = FakeOpenPiServer("no_metadata")
    srv.start()
    try:
        _start_up_failure(
            tmp_path, capfd, srv.port,
            r"sent no metadata within the connect timeout \(1 s\) after the handshake\n$",
            extra=("--connect-timeout", "1"),
        )  # fmt: skip
    finally:
        srv.stop()


def test_a_plain_tcp_port_stops_the_run(tmp_path, capfd):
    tcp = PlainTcpServer()
    try:
        _start_up_failure(
            tmp_path, capfd, tcp.port,
            r"last: no websocket handshake within the connect timeout \(1 s\): is it an "
            r"openpi server\?\n$",
            extra=("--connect-timeout", "1"),
        )  # fmt: skip
    finally:
        tcp.stop()


def test_mid_run_faults_are_the_servers_or_the_networks_and_a_restart_costs_nothing(
    tmp_path, capfd
):
    servers = {
        "silent": FakeOpenPiServer("silent"),
        "garbage": FakeOpenPiServer("garbage"),
        "close": FakeOpenPiServer("close", answer_first=1),
        "nan": FakeOpenPiServer("nan"),
        "restart": FakeOpenPiServer("hold", restart_after=1),
    }
    for srv in servers.values():
        srv.start()
    spec = {name: f"openpi:127.0.0.1:{srv.port}:3" for name, srv in servers.items()}
    try:
        code = _eval(tmp_path / "run", *spec.values(), extra=("--request-timeout", "1"))
    finally:
        for srv in servers.values():
            srv.stop()
    out, err = capfd.readouterr()
    assert code == 3, err
    assert "Traceback" not in out + err
    records = read_records(tmp_path / "run" / RECORDS_FILE)
    by = {name: sorted((r for r in records if r.policy == s), key=lambda r: r.index)
          for name, s in spec.items()}  # fmt: skip
    assert {name: len(rs) for name, rs in by.items()} == dict.fromkeys(spec, 2)

    def uri(name):
        return f"openpi server ws://127.0.0.1:{servers[name].port}"

    expected = {
        "silent": ("error", "infra", f"InfraError: {uri('silent')}: no answer within the "
                   "request timeout (1 s)"),
        "garbage": ("policy_fault", "policy", f"PolicyError: {uri('garbage')}: answered with "
                    "16 bytes that are not openpi msgpack ("),
        "close": ("error", "infra", f"InfraError: {uri('close')}: query failed after 4 "
                  "attempt(s) in "),
        "nan": ("policy_fault", "policy", f"PolicyError: {uri('nan')}: its actions have "
                "non-finite values at (row, index) [(2, 6)]"),
    }  # fmt: skip
    for name, (termination, kind, message) in expected.items():
        for r in by[name]:
            assert (r.termination, r.error_kind) == (termination, kind), (name, r.error)
            assert r.error.startswith(message), (name, r.error)
            assert not r.success
    assert "the server closed the connection before answering" in by["close"][0].error
    # the restarted server: both episodes scored, the second query re-sent after reconnecting
    assert [(r.termination, r.error, r.steps) for r in by["restart"]] == [
        ("step_limit", None, 6), ("step_limit", None, 6),
    ]  # fmt: skip
    assert servers["restart"].connections >= 2
    assert "rsb eval: 4 episodes ended in errors (4 infra), not scored:" in err
    assert (
        "rsb eval: 4 episodes ended in the policy's own faults, scored as failures (the faults "
        "column):" in err
    )


def test_in_a_sealed_run_a_servers_dropped_and_silent_episodes_are_its_failures(tmp_path, capfd):
    """A sealed run: a server that goes silent or drops the connection in an episode cannot
    have it rerun (it could do so on the episodes it is unsure of): scored failures, exit 0,
    a complete run."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"openpi e2e sealed secret, 32+ bytes long\n")
    servers = {"silent": FakeOpenPiServer("silent"), "close": FakeOpenPiServer("close")}
    for srv in servers.values():
        srv.start()
    spec = {name: f"openpi:127.0.0.1:{srv.port}:3" for name, srv in servers.items()}
    extra = ("--request-timeout", "1", "--episodes", "1", "--sealed", "--secret-file", str(secret))
    try:
        code = _eval(tmp_path / "run", *spec.values(), extra=extra)
    finally:
        for srv in servers.values():
            srv.stop()
    out, err = capfd.readouterr()
    assert code == 0, err
    records = read_records(tmp_path / "run" / RECORDS_FILE)
    got = {r.policy: (r.termination, r.error_kind, r.error.split(":")[0]) for r in records}
    assert got == {  # the cause kept as it was: a fault of the connection
        spec["close"]: ("policy_fault", "policy", "InfraError"),
        spec["silent"]: ("policy_fault", "policy", "InfraError"),
    }
    assert "episodes ended in errors" not in err
    assert "rsb eval: 2 episodes ended in the policy's own faults" in err
    assert "faults: episodes the policy failed itself" in out


@pytest.mark.parametrize("workers", [1, 2])
def test_an_object_dtype_reply_is_the_servers_failure_not_a_segfault(tmp_path, workers):
    """Issue 23 item 1: ``"dtype": "|O"`` made numpy read pointers out of the server's bytes
    (rc 139 with one worker, "worker process died" with two). ``rsb eval`` runs in a child
    process, so a crash fails this test instead of ending pytest."""
    import os
    import subprocess

    server = FakeOpenPiServer("object_dtype")
    server.start()
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--episodes", "2",
            "--out", str(out), "--workers", str(workers), "--no-progress", "--max-steps", "6",
            "--policy", f"openpi:127.0.0.1:{server.port}:3"]  # fmt: skip
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=HANG_S, env=os.environ.copy()
        )
    finally:
        server.stop()
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stdout + done.stderr
    records = read_records(out / RECORDS_FILE)
    assert sorted(r.index for r in records) == [0, 1]
    cause = (
        f"PolicyError: openpi server ws://127.0.0.1:{server.port}: answered with "
        f"{len(OBJECT_REPLY)} bytes of openpi msgpack holding a refused value: an array "
        "envelope has dtype '|O'; only bool, integer and float dtypes are decoded"
    )
    assert [(r.termination, r.error_kind, r.error) for r in records] == [
        ("policy_fault", "policy", cause)
    ] * 2  # the server's own reply: its failure
    assert "rsb eval: 2 episodes ended in the policy's own faults" in done.stderr
