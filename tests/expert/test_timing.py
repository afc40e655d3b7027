from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.expert.timing import time_parameterize

DT = 0.05


def _limits_hold(traj, start, vmax, amax):
    full = np.vstack([start, start, traj, traj[-1:]])  # at rest before and after
    vel = np.diff(full, axis=0) / DT
    acc = np.diff(vel, axis=0) / DT
    assert np.all(np.abs(vel) <= np.asarray(vmax) + 1e-9)
    # Sampling a trapezoid at dt can overshoot the acceleration bound by one sample's rounding.
    assert np.all(np.abs(acc) <= 2 * np.asarray(amax) + 1e-9)


def test_single_segment_trapezoid_duration_and_limits():
    path = np.array([[0.0, 0.0], [1.0, 0.5]])
    traj = time_parameterize(path, 1.0, 2.0, DT)
    # 0.5 s accelerating, 0.5 s cruising, 0.5 s braking: 1.5 s = 30 samples.
    assert traj.shape == (30, 2)
    np.testing.assert_array_equal(traj[-1], path[-1])
    _limits_hold(traj, path[0], 1.0, 2.0)
    np.testing.assert_allclose(traj[:, 1], traj[:, 0] / 2)


def test_short_segment_uses_a_triangle_profile():
    traj = time_parameterize(np.array([[0.0], [0.1]]), 1.0, 2.0, DT)
    # never reaches vmax: t = 2 sqrt(0.1 / 2) = 0.447 s -> 9 samples
    assert len(traj) == 9
    assert traj[-1, 0] == pytest.approx(0.1)


def test_waypoints_are_visited_at_rest():
    path = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    traj = time_parameterize(path, [1.0, 0.5], [2.0, 1.0], DT)
    assert any(np.allclose(p, [1.0, 0.0]) for p in traj)
    _limits_hold(traj, path[0], [1.0, 0.5], [2.0, 1.0])
    assert len(traj) == 30 + 50  # joint 2 is twice as slow: 2.5 s


def test_dense_path_follows_one_profile():
    s = np.linspace(0, 1, 50)
    path = np.column_stack([s, s**2])
    traj = time_parameterize(path, 1.0, 2.0, DT, stop_at_waypoints=False)
    np.testing.assert_array_equal(traj[-1], path[-1])
    _limits_hold(traj, path[0], 1.0, 2.0)
    # path length in unit-speed time: 0.5 + 0.75 = 1.25 s; 0.5 s ramps -> 1.75 s
    assert len(traj) == 35


def test_no_motion_gives_the_end_point():
    traj = time_parameterize(np.array([[0.3, 0.2], [0.3, 0.2]]), 1.0, 1.0, DT)
    np.testing.assert_array_equal(traj, [[0.3, 0.2]])
