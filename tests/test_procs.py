"""No orphans: killing ``rsb eval`` or ``rsb demos`` with two workers leaves no process.

The commands run as real subprocesses; once their workers are busy, only the parent is
killed (SIGKILL or SIGTERM, not its process group), and every process it started must be
gone within 5 s (:mod:`rsb_mj.procs`: parent-death signal plus the watchdog thread).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every live process."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        out[int(stat.parent.name)] = (int(fields[1]), fields[0])
    return out


def _descendants(pid: int) -> set[int]:
    table = _table()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, (ppid, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    table = _table()
    return {p for p in pids if p in table and table[p][1] != "Z"}  # zombies are dead


def _workers(pid: int) -> set[int]:
    out = set()
    for p in _descendants(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes():
                out.add(p)
        except OSError:
            pass
    return out


COMMANDS = {
    "eval": lambda out: [
        "eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "300",
        "--max-steps", "20", "--workers", "2", "--out", str(out), "--no-progress",
    ],
    "demos": lambda out: [
        "demos", "RSB-Math-4", "-n", "8", "-j", "2", "--cameras", "", "-o", str(out),
        "--no-progress",
    ],
}  # fmt: skip


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the Linux /proc table")
@pytest.mark.parametrize(
    "command, sig",
    [
        ("eval", signal.SIGKILL),
        pytest.param("eval", signal.SIGTERM, marks=pytest.mark.slow),
        pytest.param("demos", signal.SIGKILL, marks=pytest.mark.slow),
        pytest.param("demos", signal.SIGTERM, marks=pytest.mark.slow),
    ],
)
def test_killing_the_parent_leaves_no_worker_behind(tmp_path, command, sig):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "rsb_mj", *COMMANDS[command](out)]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        done = out / "episodes.jsonl" if command == "eval" else out
        while time.monotonic() < deadline and proc.poll() is None:
            progressed = (
                done.is_file() and done.read_bytes().count(b"\n") >= 1
                if command == "eval"
                else any(done.glob("episode_*.hdf5"))
            )
            if progressed and len(_workers(proc.pid)) == 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()
        started = _descendants(proc.pid)
        assert len(_workers(proc.pid)) == 2
        os.kill(proc.pid, sig)
        proc.wait(timeout=10)
        gone_by = time.monotonic() + 5.0
        while _alive(started) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert _alive(started) == set()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stderr.close()
