"""The user cache folder of rsb_mj (processed meshes, composed robot XML).

Slow, deterministic preprocessing (composing robosuite's Aloha, decimating meshes, computing
convex hulls) runs once at first use and is stored under a folder keyed by the versions of
everything that affects the result, so an upgrade never reads stale data. Nothing is ever
downloaded. ``RSB_MJ_CACHE`` overrides the root folder (default ``~/.cache/rsb_mj``).

When the default folder cannot be written (a read-only or missing home), the cache falls
back to ``<temp dir>/rsb_mj-cache-<uid>`` and says so once on stderr; a folder named by
``RSB_MJ_CACHE`` that cannot be written (a file, a read-only folder) is an error naming it
and the fix (:data:`CACHE_FIX`). A run looks before its first episode: the evaluation stage's
run planning (``rsb eval``, :func:`rsb_mj.evaluate`, :func:`~rsb_mj.evaluation.runner.
run_eval`), ``rsb demos`` and the vla-eval benchmark's constructor; ``rsb doctor`` before
anything else.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from functools import cache
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

from rsb_mj.errors import RsbError

#: Bump when the content or layout of cached files changes.
CACHE_SCHEMA = 3
#: What to do about an ``RSB_MJ_CACHE`` that cannot be written.
CACHE_FIX = "set RSB_MJ_CACHE to a writable folder, or unset it to cache in ~/.cache/rsb_mj"


def versions_key() -> str:
    """A folder name that identifies the versions the cache content depends on."""
    parts = [
        f"s{CACHE_SCHEMA}",
        f"mj{version('mujoco')}",
        f"rs{version('robosuite')}",
        f"rsm{version('robosuite-models')}",
        # The composed XML names mesh files by absolute path: key the install location too.
        hashlib.sha1(str(find_spec("robosuite_models").origin).encode()).hexdigest()[:8],
    ]
    return "-".join(parts)


def _writable_folder(path: Path) -> str:
    """The empty string when ``path`` is (made) a writable folder, else why it is not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe."):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return ""


@cache
def cache_root() -> Path:
    """The root cache folder: ``RSB_MJ_CACHE``, else ``~/.cache/rsb_mj``, else (unwritable
    home) a per-user folder in the temporary directory.

    Raises:
        RsbError: when ``RSB_MJ_CACHE`` names a folder that cannot be written, or no
            candidate can.
    """
    named = os.environ.get("RSB_MJ_CACHE")
    if named:
        if os.path.exists(named) and not os.path.isdir(named):
            raise RsbError(f"RSB_MJ_CACHE={named}: a file, not a folder; {CACHE_FIX}")
        why = _writable_folder(Path(named))
        if why:
            raise RsbError(
                f"RSB_MJ_CACHE={named}: cannot write the cache folder ({why}); {CACHE_FIX}"
            )
        return Path(named)
    try:
        home = Path.home() / ".cache" / "rsb_mj"
    except RuntimeError:  # no home directory at all
        home = None
    why = _writable_folder(home) if home is not None else "no home directory"
    if not why:
        return home
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    fallback = Path(tempfile.gettempdir()) / f"rsb_mj-cache-{uid}"
    why_not = _writable_folder(fallback)
    if why_not:
        raise RsbError(
            f"{home}: cannot write the cache folder ({why}), nor {fallback} ({why_not}); "
            "set RSB_MJ_CACHE to a writable folder"
        )
    os.environ["RSB_MJ_CACHE"] = str(fallback)  # worker processes inherit it silently
    print(
        f"rsb_mj: {home} cannot be written ({why}); caching in {fallback} "
        "(set RSB_MJ_CACHE to choose)",
        file=sys.stderr,
    )
    return fallback


def cache_dir() -> Path:
    """The versioned cache folder (created if missing; see :func:`cache_root`)."""
    path = cache_root() / versions_key()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RsbError(f"{path}: cannot create the cache folder ({exc.strerror or exc})") from None
    return path
