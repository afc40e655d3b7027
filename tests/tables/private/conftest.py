"""The private draw of :mod:`.private_draws`, drawn once for the tests that read it."""

from __future__ import annotations

import pytest

from .private_draws import draw


@pytest.fixture(scope="session")
def drawn(tmp_path_factory):
    """A private draw of RSB-Math-4 and A2A-Color, 50 rows each (no legibility reader);
    read only (a test that changes it works on a copy)."""
    return draw(tmp_path_factory.mktemp("private") / "draw")
