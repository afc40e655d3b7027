"""Build a dataset folder beside its target and rename it into place; clear killed builds.

An export writes into a hidden sibling ``.<name>.<host>.<pid>.<random>.tmp`` and renames it
to ``<name>`` at the end, so the target is complete or absent; an existing target being
replaced goes to ``.<name>.<host>.<pid>.<random>.old`` first. A build killed before its
``finally`` ran (SIGKILL, power loss) leaves its folder behind: the next export of the same
target removes every such folder whose process, named in it, no longer runs on this host,
and the ones written by rsb_mj versions that named no process (``.<name>.<random>.tmp``).
A build running now, here or on another host, is left alone.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import tempfile
from pathlib import Path

#: Suffixes of staging folders.
SUFFIXES = (".tmp", ".old")


def _host() -> str:
    return socket.gethostname().replace(".", "-") or "host"


def staging_dir(target: Path, suffix: str = ".tmp") -> Path:
    """A new empty hidden folder beside ``target`` named after it, this host and process."""
    prefix = f".{target.name}.{_host()}.{os.getpid()}."
    return Path(tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=target.parent))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def remove_stale(target: Path) -> list[Path]:
    """Remove the staging folders of killed builds of ``target``; returns them."""
    removed = []
    stem = f".{target.name}."
    for suffix in SUFFIXES:
        for path in target.parent.glob(f"{glob.escape(stem)}*{suffix}"):
            parts = path.name[len(stem) : -len(suffix)].split(".")
            if len(parts) == 3:  # host, pid, random
                host, pid = parts[0], parts[1]
                if host != _host() or not pid.isdigit() or _alive(int(pid)):
                    continue
            elif len(parts) != 1:  # not a staging folder of this target
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed
