"""What kind of file a ``stat`` mode is, in words: the one wording of every refusal of a path
that should be a regular file (a task's referenced files, ``--assets`` originals, secret
files)."""

from __future__ import annotations

import stat

__all__ = ["file_kind"]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str | None:
    """None for a regular file; else what it is (``"a FIFO"``, ``"a folder"``, ...,
    ``"a special file"``)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")
