"""The settings a demonstrations folder was recorded with (``demos.json``).

``rsb demos`` resumes a folder: it keeps the files already there and writes the missing
ones. That is right only when the rerun asks for what the files hold, so the first run into
a folder records its settings (flag -> value) there, and a rerun with another value of any of
them is refused, naming the flag and both values, before any episode runs. Question and goal
demonstrations may share a folder (their files are named apart), so each kind keeps its own
settings. A folder recorded before this file existed adopts the settings of its next run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rsb_mj.atomic import atomic_write_text
from rsb_mj.errors import ExpertError

#: The settings file in a demonstrations folder.
SETTINGS_FILE = "demos.json"


def _shown(value: Any) -> str:
    return "(not given)" if value is None else "''" if value == "" else str(value)


def hold_settings(out_dir: Path, kind: str, settings: dict[str, Any]) -> None:
    """Record ``settings`` (flag -> a JSON value, e.g. ``{"--width": 320}``) of ``kind``'s
    demonstrations (``"question"`` or ``"goal"``) in ``out_dir``, or check them against
    those it holds. Call it with the folder locked.

    Raises:
        ExpertError: ``out_dir`` holds ``kind``'s demonstrations recorded with another value
            of one of ``settings``' flags, or an unreadable settings file.
    """
    path = Path(out_dir) / SETTINGS_FILE
    every: dict[str, Any] = {}
    if path.is_file():
        try:
            every = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(every, dict) or not all(isinstance(v, dict) for v in every.values()):
                raise ValueError("not a JSON object of settings by kind")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ExpertError(
                f"{path}: the folder's demonstration settings cannot be read ({exc}); "
                "give another --out, or remove the file to adopt this run's settings"
            ) from None
    held = every.get(kind)
    if held is not None:
        for flag, value in settings.items():
            if flag in held and held[flag] != value:
                raise ExpertError(
                    f"{flag} {_shown(value)}: {out_dir} holds demonstrations recorded with "
                    f"{flag} {_shown(held[flag])} ({path.name}); rerun with that to resume "
                    "it, or give another --out"
                )
        if all(flag in held for flag in settings):
            return
        settings = {**settings, **held}
    every[kind] = settings
    atomic_write_text(path, json.dumps(every, indent=1, sort_keys=True) + "\n")
