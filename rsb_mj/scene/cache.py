"""The user cache folder of rsb_mj (processed meshes, composed robot XML).

Slow, deterministic preprocessing (composing robosuite's Aloha, decimating meshes, computing
convex hulls) runs once at first use and is stored under a folder keyed by the versions of
everything that affects the result, so an upgrade never reads stale data. Nothing is ever
downloaded. ``RSB_MJ_CACHE`` overrides the root folder (default ``~/.cache/rsb_mj``).
"""

from __future__ import annotations

import hashlib
import os
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

#: Bump when the content or layout of cached files changes.
CACHE_SCHEMA = 3


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


def cache_dir() -> Path:
    """The versioned cache folder (created if missing)."""
    root = Path(os.environ.get("RSB_MJ_CACHE", Path.home() / ".cache" / "rsb_mj"))
    path = root / versions_key()
    path.mkdir(parents=True, exist_ok=True)
    return path
