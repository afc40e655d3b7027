"""Fixtures for environment tests."""

from __future__ import annotations

import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.suites import get_suite


@pytest.fixture(scope="module")
def blind_env():
    """RSB-Math-4 without cameras (physics and signals only)."""
    env = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4", cameras=())
    yield env
    env.close()
