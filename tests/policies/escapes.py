"""User policies that try to leave the policy interface (``--policy policies.escapes:NAME``).

``cheat`` reads the answer the way any in-process code can: it walks the interpreter's
frames (``sys._getframe``) and objects (``gc.get_objects``) for the episode whose
instruction is the one it was given, and tries rsb's process memory through
``/proc/<parent>/mem``. It writes what it found as its ``text`` (kept in the record).
The others break out of the harness: they fork and let the copy return, raise
``KeyboardInterrupt``, end their process with ``os._exit(3)`` or a signal, or command 1e30;
``reporter`` says what it was handed.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
from typing import Any

import numpy as np


def answer_from_frames() -> str | None:
    """The target of an ``Episode`` held by a local variable of a calling frame."""
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if type(value).__name__ == "Episode":
                return value.target
        frame = frame.f_back
    return None


def answer_from_gc(instruction: str) -> str | None:
    """The target of the live ``Episode`` whose instruction is ``instruction``."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "Episode" and getattr(obj, "instruction", None) == instruction:
            return obj.target
    return None


def _rsb_pid() -> int | None:
    """The nearest ancestor that is not bubblewrap (rsb's process), None when none is in
    sight (in the sandbox the ancestors are the PID namespace's bwrap, pid 1)."""
    pid = os.getppid()
    while pid > 0:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                comm, _, rest = fh.read().rpartition(")")
        except OSError:
            return None
        if not comm.endswith("(bwrap"):
            return pid
        pid = int(rest.split()[1])
    return None


def parent_memory() -> str:
    """``"readable"`` when a page of the parent process's memory can be read, else the
    error (rsb's process is the parent of a policy process, or of its sandbox)."""
    ppid = _rsb_pid()
    if ppid is None:
        return "no rsb process in sight"
    try:
        with open(f"/proc/{ppid}/maps") as fh:
            first = next(line for line in fh if line.split()[1].startswith("r"))
        start = int(first.split("-")[0], 16)
        with open(f"/proc/{ppid}/mem", "rb") as mem:
            mem.seek(start)
            mem.read(16)
    except OSError as exc:
        return f"refused ({type(exc).__name__})"
    return "readable"


class Cheat:
    """Holds its pose; ``text`` says what the cheat found (see the module docstring)."""

    cameras = ()

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        found_frames = answer_from_frames()
        found_gc = answer_from_gc(env.instruction)
        self.text = f"frames={found_frames}; gc={found_gc}; memory={parent_memory()}"

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs["state"])


class Holds:
    """Holds its pose (``act`` returns the state); the escapes below fail in ``act``."""

    cameras = ()

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs["state"])


class Forks(Holds):
    """Forks at its first ``act`` and lets the copy return (as a careless
    ``os.fork()`` without ``exec`` or ``_exit`` would)."""

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.forked = False

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        if not self.forked:
            self.forked = True
            os.fork()  # both processes return from here
        return super().act(obs)


class Interrupts(Holds):
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        raise KeyboardInterrupt


class Exits(Holds):
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        os._exit(3)


class Huge(Holds):
    """Commands the state with one joint at 1e30 (radians): no joint position."""

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        action = np.array(obs["state"], dtype=np.float64)
        action[3] = 1e30
        return np.stack([action, action])


class Slightly(Holds):
    """Commands a pose just outside the joint range (clipped by the simulator: allowed)."""

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        action = np.array(obs["state"], dtype=np.float64)
        action[0] = 3.5  # the waist range is +-3.14158 rad
        return action


class Killed(Holds):
    """Its process is killed by a signal (as a crash in native code would end it)."""

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        os.kill(os.getpid(), signal.SIGKILL)
        return super().act(obs)


class Spawns(Holds):
    """Forks a copy that sleeps (and never returns into the loop); ``text`` is its pid."""

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        self.text = str(pid)
        return super().act(obs)


class Reporter(Holds):
    """``text`` says what ``reset`` was handed: the view's type and fields, the spaces, the
    info keys, the observation's arrays (one line of JSON)."""

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        images = obs.get("images", {})
        self.text = json.dumps(
            {
                "env": type(env).__name__,
                "candidates": list(env.candidates),
                "control_hz": env.control_hz,
                "instruction": env.instruction,
                "action_space": repr(env.action_space),
                "observation_space": repr(env.observation_space),
                "info": sorted(info),
                "signals": {k: [str(v.dtype), list(v.shape)] for k, v in info["signals"].items()},
                "state": [str(obs["state"].dtype), list(obs["state"].shape)],
                "images": {k: [str(v.dtype), list(v.shape)] for k, v in images.items()},
                "writable": bool(obs["state"].flags.writeable),
            }
        )


class Simulated(Holds):
    """Declares ``simulator = True`` (it wants the simulator's state)."""

    simulator = True


def cheat() -> Cheat:
    return Cheat()


def forks() -> Forks:
    return Forks()


def interrupts() -> Interrupts:
    return Interrupts()


def exits() -> Exits:
    return Exits()


def huge() -> Huge:
    return Huge()


def slightly() -> Slightly:
    return Slightly()


def simulated() -> Simulated:
    return Simulated()


def killed() -> Killed:
    return Killed()


def spawns() -> Spawns:
    return Spawns()


def reporter() -> Reporter:
    return Reporter()
