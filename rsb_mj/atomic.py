"""Atomic file writes: readers see the old file or the whole new one, never a part.

Every file rsb_mj produces (task files rewritten by ``rsb fmt``, ``run.json``, reports,
tables, manifests, demonstrations) goes through :func:`atomic_write_bytes` or
:func:`atomic_write_text`: the data is written to a temporary file in the same folder,
flushed and fsynced, optionally verified, then renamed over the target with
:func:`os.replace`. A failed write (full disk, ``ulimit -f``, a kill) leaves the target as
it was and removes the temporary file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from rsb_mj.errors import RsbError


class WriteError(RsbError):
    """A file could not be written (names the path and the cause)."""


def atomic_write_bytes(
    path: str | Path,
    data: bytes,
    *,
    verify: Callable[[Path], None] | None = None,
    mode: int = 0o644,
) -> None:
    """Write ``data`` to ``path`` atomically.

    Args:
        path: the target file; its folder must exist. (A symlink is replaced by a regular
            file: pass the resolved path to write the file it points to.)
        data: the full content.
        verify: called with the temporary file before the rename; raising keeps the
            target untouched.
        mode: permission bits of the new file (e.g. the old file's, to keep them).

    Raises:
        WriteError: naming ``path`` and the cause (permissions, disk full, file size limit).
    """
    path = Path(path)
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        with os.fdopen(fd, "wb") as fh:
            view = memoryview(data)
            while view:
                view = view[fh.write(view) :]
            fh.flush()
            os.fsync(fh.fileno())
        if verify is not None:
            verify(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise WriteError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def atomic_write_text(
    path: str | Path,
    text: str,
    *,
    encoding: str = "utf-8",
    verify: Callable[[Path], None] | None = None,
    mode: int = 0o644,
) -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded with ``encoding``."""
    atomic_write_bytes(path, text.encode(encoding), verify=verify, mode=mode)


def writable_folder(path: str | Path, what: str, *, mode: int = 0o777) -> Path:
    """Make ``path`` a folder (with its parents) and check that files can be created in it.

    The check creates and removes a temporary file, so it holds for root too (for whom
    permission bits do not stop a write, while a read-only file system does).

    Args:
        path: the folder.
        what: what goes there, for messages (e.g. ``"the tables (-o)"``).
        mode: permission bits of the folders created (less the umask).

    Raises:
        WriteError: naming ``path`` and the cause: it (or a folder above it) is a file, or it
            cannot be created or written.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise WriteError(f"{path}: cannot write {what} there: it is a file, not a folder")
    for above in path.parents:
        if above.exists() and not above.is_dir():
            raise WriteError(f"{path}: cannot write {what} there: {above} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=mode)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe."):
            pass
    except OSError as exc:
        raise WriteError(
            f"{path}: cannot write {what} there ({exc.strerror or exc}); name a folder you "
            "can write"
        ) from None
    return path
