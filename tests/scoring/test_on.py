"""On's LIBERO and VLA-Arena variants on hand-made states (its rsb variant on real runs:
test_on_env.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.lang.task import SEMANTICS
from rsb_mj.scoring.predicates.on import on_object, on_site

EYE = np.eye(3)


@pytest.mark.parametrize(
    ("dx", "libero", "vla_arena"),
    [(0.0, True, True), (0.029, True, True), (0.031, False, True), (0.069, False, True),
     (0.071, False, False)],
)  # fmt: skip
def test_on_object_xy_threshold_is_each_sources_own(dx, libero, vla_arena):
    a, b = np.array([dx, 0.0, 0.80]), np.array([0.0, 0.0, 0.76])
    assert on_object(a, b, True, SEMANTICS["libero"]) is libero
    assert on_object(a, b, True, SEMANTICS["vla_arena"]) is vla_arena


def test_on_object_needs_contact_and_height_order():
    a, b = np.array([0.0, 0.0, 0.80]), np.array([0.0, 0.0, 0.76])
    assert on_object(a, b, False, 0.07) is False  # no contact
    assert on_object(b, a, True, 0.07) is False  # the support above the mover
    assert on_object(a, a, True, 0.07) is True  # equal heights count (z_b <= z_a)


def test_on_site_height_window_and_half_size():
    site, half = np.array([0.1, 0.2, 0.75]), np.array([0.02, 0.01, 0.001])
    assert on_site([0.1, 0.2, 0.78], site, EYE, half)
    assert on_site([0.119, 0.209, 0.78], site, EYE, half)
    assert not on_site([0.121, 0.2, 0.78], site, EYE, half)  # outside in x
    assert not on_site([0.1, 0.211, 0.78], site, EYE, half)  # outside in y
    assert not on_site([0.1, 0.2, 0.75 + 0.001 + 0.101], site, EYE, half)  # too high
    assert not on_site([0.1, 0.2, 0.745], site, EYE, half)  # below the site's top - 5 mm
    assert on_site([0.1, 0.2, 0.7465], site, EYE, half)


def test_on_site_reads_the_site_frame():
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90 deg about z
    site, half = np.zeros(3), np.array([0.05, 0.01, 0.0])
    assert on_site([0.0, 0.04, 0.02], site, turn, half)  # the long side now along world y
    assert not on_site([0.04, 0.0, 0.02], site, turn, half)
