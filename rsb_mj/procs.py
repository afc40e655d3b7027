"""Worker processes that never outlive their parent.

Pools of ``spawn`` processes (``rsb eval --workers``, ``rsb demos -j``, ``rsb expert-check
-j``) start every worker with :func:`worker_init`. When the parent dies, even by SIGKILL,
the worker ends within about a second:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` asks the kernel to kill the worker when
  the thread that created it exits;
- everywhere, a daemon watchdog thread polls ``os.getppid()`` every
  :data:`WATCHDOG_PERIOD_S` seconds and ends the process with ``os._exit`` once the parent
  is gone (the worker was re-parented).

Use :func:`spawn_context` and pass ``initializer=worker_init, initargs=(os.getpid(),)``.
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
from typing import Any

#: Seconds between two checks of the watchdog thread.
WATCHDOG_PERIOD_S = 0.5
#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1


def spawn_context() -> BaseContext:
    """The ``spawn`` multiprocessing context every rsb_mj pool uses."""
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
    """Initializer of every pool worker: end with the parent (see the module docstring).

    Args:
        parent_pid: ``os.getpid()`` of the process that creates the pool.
    """
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watchdog, args=(parent_pid,), daemon=True, name="rsb-watchdog").start()


def terminate_pool(pool: Any) -> None:
    """Stop a ``ProcessPoolExecutor`` now: cancel its queued jobs and kill its workers
    (waiting at most 5 s for each to exit)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.kill()
    for proc in processes:
        proc.join(timeout=5)
