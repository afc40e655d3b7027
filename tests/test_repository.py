"""The tracked tree as a whole: no file carries a merge's conflict markers.

Two docs pages once reached main with ``<<<<<<< HEAD`` blocks in them (a merge resolved in
code but not in prose); the docs tests read those pages by section and did not notice.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(rb"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:  # pragma: no cover - not a checkout
        pytest.skip(f"not a git checkout ({exc}): the tracked files are unknown")
    return [ROOT / name.decode() for name in out.split(b"\0") if name]


def test_no_tracked_file_holds_conflict_markers() -> None:
    hits = []
    for path in _tracked():
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        for m in MARKER.finditer(data):
            line = data.count(b"\n", 0, m.start()) + 1
            hits.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0).decode().strip()}")
    assert not hits, "merge conflict markers:\n" + "\n".join(hits)
