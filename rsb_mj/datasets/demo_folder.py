"""The settings a demonstrations folder was recorded with (``demos.json``).

``rsb demos`` resumes a folder: it keeps the files already there and writes the missing
ones. That is right only when the rerun asks for what the files hold, so the first run into
a folder records its settings (flag -> value) there, and a rerun with another value of any of
them is refused, naming the flag and both values, before any episode runs. A folder recorded
before this file existed adopts the settings of its next run.
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


def hold_settings(out_dir: Path, settings: dict[str, Any]) -> None:
    """Record ``settings`` (flag -> a JSON value, e.g. ``{"--width": 320}``) in
    ``out_dir``, or check them against those it holds. Call it with the folder locked.

    Raises:
        ExpertError: ``out_dir`` holds demonstrations recorded with another value of one of
            ``settings``' flags, or an unreadable settings file.
    """
    path = Path(out_dir) / SETTINGS_FILE
    if path.is_file():
        try:
            held = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(held, dict):
                raise ValueError("not a JSON object")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ExpertError(
                f"{path}: the folder's demonstration settings cannot be read ({exc}); "
                "give another --out, or remove the file to adopt this run's settings"
            ) from None
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
    atomic_write_text(path, json.dumps(settings, indent=1, sort_keys=True) + "\n")
