"""Soak: 500 episodes on two workers while a fault injector kills workers and the policy
server at random points; resuming gives exactly the records of an undisturbed run.

The run evaluates ``noop`` and an ``openpi:`` policy served by the hold-state openpi server
of ``tests/policies/openpi_server.py`` (run in its own process on a fixed port, so it can
be killed and started again there) on 250 rows of RSB-Math-4 with a 5-step limit. Three
worker kills (SIGKILL) and three server kills (down for 0.5-4 s) are spread over the first
run, 5-15 s apart; then the same command is rerun until it exits 0.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE

ROOT = Path(__file__).resolve().parents[2]
#: Kills of a worker and of the server each, at random points of the first run.
FAULTS = 3
SERVER = (
    "import sys, threading; sys.path.insert(0, sys.argv[2]);"
    "from openpi_server import HoldStateServer;"
    "from websockets.sync.server import serve;"
    "ws = serve(HoldStateServer()._handler, '127.0.0.1', int(sys.argv[1]), compression=None,"
    " max_size=None); ws.serve_forever()"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(ROOT / "tests" / "policies")],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    raise AssertionError("the soak server did not start")


def _workers(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and b"spawn_main" in cmdline:
            out.append(int(stat.parent.name))
    return sorted(out)


def _cmd(out: Path, spec: str) -> list[str]:
    return [
        sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--policy", "noop",
        "--policy", spec, "--episodes", "250", "--max-steps", "5", "--workers", "2",
        "--out", str(out), "--no-progress", "--connect-timeout", "2",
    ]  # fmt: skip


def _comparable(records):
    return sorted((replace(r, wall_s=0.0) for r in records), key=lambda r: r.key)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_soak_kills_then_resume_equal_an_undisturbed_run(tmp_path):
    port = _free_port()
    spec = f"openpi:127.0.0.1:{port}:5"
    server = _start_server(port)
    rng = np.random.default_rng(7)
    faults = Counter()
    try:
        disturbed = tmp_path / "disturbed"
        proc = subprocess.Popen(
            _cmd(disturbed, spec), cwd=ROOT, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        schedule = list(rng.permutation(["worker"] * FAULTS + ["server"] * FAULTS))
        while proc.poll() is None and schedule:
            time.sleep(rng.uniform(5.0, 15.0))
            if proc.poll() is not None:
                break
            workers = _workers(proc.pid)
            if schedule[-1] == "worker" and workers:
                os.kill(int(rng.choice(workers)), signal.SIGKILL)
            elif schedule[-1] == "server":
                server.kill()
                server.wait()
                time.sleep(rng.uniform(0.5, 4.0))
                server = _start_server(port)
            else:
                continue  # the pool is being replaced: try again later
            faults[schedule.pop()] += 1
        proc.wait(timeout=1800)
        err = proc.stderr.read().decode()
        proc.stderr.close()
        assert proc.returncode in (0, 3), err
        assert faults == {"worker": FAULTS, "server": FAULTS}, faults
        lines = (disturbed / RECORDS_FILE).read_text().splitlines()
        errors_seen = sum(json.loads(line)["termination"] == "error" for line in lines)
        assert errors_seen >= 1  # the faults hit episodes
        for _ in range(3):  # resume until nothing is left (each resume retries the errors)
            again = subprocess.run(
                _cmd(disturbed, spec), cwd=ROOT, capture_output=True, text=True, timeout=900
            )
            if again.returncode == 0:
                break
            assert again.returncode == 3, again.stderr
        assert again.returncode == 0, again.stderr
        undisturbed = tmp_path / "undisturbed"
        clean = subprocess.run(
            _cmd(undisturbed, spec), cwd=ROOT, capture_output=True, text=True, timeout=900
        )
        assert clean.returncode == 0, clean.stderr
    finally:
        server.kill()
        server.wait()
    rows = [json.loads(line) for line in (disturbed / RECORDS_FILE).read_text().splitlines()]
    scored = Counter(
        (r["suite"], r["split"], r["index"], r["policy"])
        for r in rows
        if r["termination"] != "error"
    )
    assert len(scored) == 500 and set(scored.values()) == {1}  # exactly one scored record each
    final = read_records(disturbed / RECORDS_FILE)
    reference = read_records(undisturbed / RECORDS_FILE)
    assert len(final) == len(reference) == 500
    assert _comparable(final) == _comparable(reference)
    assert summarize(final) == summarize(reference)
