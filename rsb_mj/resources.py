"""Locate the data folders that ship with rsb_mj, and the user cache folder.

The repository keeps ``grammar/``, ``tasks/`` and ``assets/`` at its top level. A wheel
installs them as ``rsb_mj/_share/<name>`` (see ``pyproject.toml``); an editable install or a
checkout finds them beside the package.
"""

from __future__ import annotations

import os
from pathlib import Path

from rsb_mj.errors import RsbError

_PACKAGE_DIR = Path(__file__).resolve().parent
_FOLDERS = ("grammar", "tasks", "assets")


def share_dir(name: str) -> Path:
    """Return the folder ``name`` (one of grammar, tasks, assets).

    Raises:
        RsbError: if ``name`` is unknown or the folder is missing from the installation.
    """
    if name not in _FOLDERS:
        raise RsbError(f"unknown data folder {name!r}; valid choices: {', '.join(_FOLDERS)}")
    for candidate in (_PACKAGE_DIR / "_share" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise RsbError(f"data folder {name!r} not found beside {_PACKAGE_DIR}; reinstall rsb_mj")


def grammar_path() -> Path:
    """Path of the task-language grammar file."""
    return share_dir("grammar") / "rsb.lark"


def tasks_dir() -> Path:
    """Folder of the shipped task files (``*.bddl``), templates and episode tables."""
    return share_dir("tasks")


def assets_dir() -> Path:
    """Folder of the shipped assets (question data, textures, meshes)."""
    return share_dir("assets")


def cache_root() -> Path | None:
    """Root of rsb_mj's user cache: ``RSB_MJ_CACHE``, else ``~/.cache/rsb_mj``; None when
    there is no home directory. (The root of the grammar's LALR tables; the scene cache,
    :mod:`rsb_mj.scene.cache`, checks it is writable.)"""
    named = os.environ.get("RSB_MJ_CACHE")
    if named:
        return Path(named)
    try:
        return Path.home() / ".cache" / "rsb_mj"
    except RuntimeError:  # no home directory
        return None
