"""One writer per output folder: an exclusive lock on ``<folder>/.rsb.lock``.

``rsb eval`` and ``rsb demos`` take the lock of their output folder before writing
anything and hold it until they end. The lock is ``fcntl.flock`` on the lock file, so the
kernel releases it when the holder dies (even by SIGKILL): a stale lock file from a killed
run is simply taken over. The file holds the holder's pid, host, start time and command,
which a second run prints when it is refused.

The lock file is the one file rsb_mj rewrites in place rather than atomically: the lock
belongs to the file's inode, which a rename would replace.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path
from types import TracebackType

from rsb_mj.atomic import WriteError
from rsb_mj.errors import RsbError

#: Name of the lock file inside a locked folder.
LOCK_FILE = ".rsb.lock"


class LockedError(RsbError):
    """Another process holds the lock of an output folder."""


def _holder(path: Path) -> str:
    """``"rsb eval (pid N on HOST, started T UTC)"`` from a held lock file."""
    try:
        owner = json.loads(path.read_text())
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(owner["started"])))
        return f"{owner['command']} (pid {owner['pid']} on {owner['host']}, started {started})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process (owner unknown)"


class FolderLock:
    """Exclusive lock of an output folder (a context manager).

    Args:
        folder: the output folder (must exist).
        command: what the holder runs, e.g. ``"rsb eval"`` (for the refusal message).
    """

    def __init__(self, folder: Path, command: str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.command = command
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock without waiting.

        Raises:
            LockedError: when another process holds it (names its pid, host and command).
            WriteError: when the lock file cannot be created (names the path and the cause).
        """

        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise WriteError(f"{self.folder}: cannot write ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LockedError(
                f"{self.folder}: in use by {_holder(self.path)}; wait for it to finish or "
                "use another output folder"
            ) from None
        owner = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": round(time.time(), 3),
            "command": self.command,
            "argv": sys.argv,
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Release the lock (the file stays; the next holder overwrites it)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FolderLock:
        if self._fd is None:
            self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def make_folder(folder: Path) -> Path:
    """Create the output folder ``folder`` (and its parents) if missing.

    Raises:
        WriteError: one line naming the path and the cause: a file in the way, no
            permission, a read-only file system.
    """

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise WriteError(f"{folder}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in folder.parents if p.exists() and not p.is_dir()), None)
        raise WriteError(
            f"{folder}: cannot create the folder ({blocker or folder.parent} is not a folder)"
        ) from None
    except OSError as exc:
        raise WriteError(f"{folder}: cannot create the folder ({exc.strerror or exc})") from None
    return folder


def lock_folder(folder: Path, command: str) -> FolderLock:
    """Create ``folder`` if missing and take its lock (release it with ``release()`` or use
    the result as a context manager; taking it twice is harmless)."""
    lock = FolderLock(make_folder(folder), command)
    lock.acquire()
    return lock
