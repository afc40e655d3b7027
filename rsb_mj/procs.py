"""Child processes that never outlive their parent: the pool's spawned workers
(:mod:`rsb_mj.evaluation.pool.processes`) and policy processes (:mod:`rsb_mj.policies.child`).

Every such process starts with :func:`worker_init`. When the parent dies, even by SIGKILL,
the child ends within about a second:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` asks the kernel to kill the child when
  the thread that created it exits;
- everywhere, a daemon watchdog thread polls ``os.getppid()`` every
  :data:`WATCHDOG_PERIOD_S` seconds and ends the process with ``os._exit`` once the parent
  is gone (the child was re-parented).

Children are started with :func:`spawn_context` (never ``fork``: MuJoCo's GL contexts and
Ray's threads do not survive it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing.context import BaseContext

#: Seconds between two checks of the watchdog thread.
WATCHDOG_PERIOD_S = 0.5
#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1


def spawn_context() -> BaseContext:
    """The ``spawn`` multiprocessing context of every rsb_mj worker process."""
    return multiprocessing.get_context("spawn")


def _set_parent_death_signal() -> bool:
    """Linux only: have the kernel SIGKILL this process when its parent exits."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watchdog(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(WATCHDOG_PERIOD_S)


def worker_init(parent_pid: int) -> None:
    """Initializer of every child process: end with the parent (see the module docstring).

    Args:
        parent_pid: ``os.getpid()`` of the process that starts the child.
    """
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watchdog, args=(parent_pid,), daemon=True, name="rsb-watchdog").start()
