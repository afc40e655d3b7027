"""One writer per folder: the lock of :mod:`rsb_mj.lock` across real processes."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from rsb_mj.lock import LOCK_FILE, FolderLock, LockedError

HOLD = (
    "import sys, time; from pathlib import Path; from rsb_mj.lock import lock_folder;"
    "lock_folder(Path(sys.argv[1]), 'rsb demos'); print('held', flush=True); time.sleep(60)"
)


def test_a_lock_held_by_another_process_is_refused_and_freed_when_it_is_killed(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(
            LockedError, match=rf"^{tmp_path}: in use by rsb demos \(pid {holder.pid} on "
        ):
            FolderLock(tmp_path, "rsb eval").acquire()
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    with FolderLock(tmp_path, "rsb eval") as lock:  # the kernel released the dead holder's lock
        assert lock.path == tmp_path / LOCK_FILE
