"""The private draw the ``test_private_*`` modules share: its secret, and a draw of
RSB-Math-4 and A2A-Color (``conftest.py`` makes it the session fixture ``drawn``)."""

from __future__ import annotations

from pathlib import Path

from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.secret import Secret

SECRET = b"issue 24 test secret, not for real use"
ROWS = 50


def draw(out: Path) -> Path:
    """A private draw of RSB-Math-4 and A2A-Color into ``out``, 50 rows each (no legibility
    reader)."""
    build_private(["RSB-Math-4", "A2A-Color"], Secret(SECRET), out, rows=ROWS, log=lambda _: None)
    return out
