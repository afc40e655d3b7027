"""Time parameterization of joint paths within velocity and acceleration limits.

A path (K, n) is followed along its polyline with a trapezoidal speed profile: the path
parameter accelerates at the largest rate every joint allows, cruises at the largest speed
every joint allows, and decelerates to rest at the end. With ``stop_at_waypoints`` each
segment gets its own profile (rest at every corner, exact limits); otherwise one profile
spans the whole polyline (meant for dense, smooth paths such as Cartesian lines).
"""

from __future__ import annotations

import numpy as np


def _trapezoid(length: float, vmax: float, amax: float, dt: float) -> np.ndarray:
    """Samples of s(t) in [0, length] every ``dt`` seconds; rest at both ends; last = length."""
    if length <= 0:
        return np.zeros(1)
    t_acc = vmax / amax
    if amax * t_acc**2 >= length:  # triangle profile: never reaches vmax
        t_acc = np.sqrt(length / amax)
        vmax = amax * t_acc
        t_flat = 0.0
    else:
        t_flat = (length - amax * t_acc**2) / vmax
    total = 2 * t_acc + t_flat
    n = max(1, int(np.ceil(total / dt)))
    t = np.arange(1, n + 1) * dt
    t = np.minimum(t, total)
    s = np.where(
        t < t_acc,
        0.5 * amax * t**2,
        np.where(
            t < t_acc + t_flat,
            0.5 * amax * t_acc**2 + vmax * (t - t_acc),
            length - 0.5 * amax * np.maximum(total - t, 0.0) ** 2,
        ),
    )
    s[-1] = length
    return s


def time_parameterize(
    path: np.ndarray,
    vmax: np.ndarray | float,
    amax: np.ndarray | float,
    dt: float,
    *,
    stop_at_waypoints: bool = True,
) -> np.ndarray:
    """Joint set-points every ``dt`` seconds along ``path``.

    Args:
        path: waypoints, shape (K, n) [rad].
        vmax: per-joint speed limit [rad/s], scalar or shape (n,).
        amax: per-joint acceleration limit [rad/s^2], scalar or shape (n,).
        dt: sample period [s] (the control period, 0.05 s at 20 Hz).
        stop_at_waypoints: rest at every waypoint (exact limits on a sparse path).

    Returns:
        Set-points, shape (T, n); the first sample is one ``dt`` after the start, the last
        equals ``path[-1]``. A path with no motion gives one sample, its end point.
    """
    path = np.atleast_2d(np.asarray(path, float))
    n = path.shape[1]
    vmax = np.broadcast_to(np.asarray(vmax, float), (n,))
    amax = np.broadcast_to(np.asarray(amax, float), (n,))
    if stop_at_waypoints and len(path) > 2:
        parts = [
            time_parameterize(path[k : k + 2], vmax, amax, dt, stop_at_waypoints=False)
            for k in range(len(path) - 1)
        ]
        return np.concatenate(parts)
    seg = np.diff(path, axis=0)
    # Path parameter u = time at unit speed scale: du = max_j |dq_j| / vmax_j.
    seg_time = (np.abs(seg) / vmax).max(axis=1) if len(seg) else np.zeros(0)
    keep = seg_time > 1e-12
    if not keep.any():
        return path[-1:].copy()
    points = np.concatenate([path[:1], path[1:][keep]])
    seg, seg_time = np.diff(points, axis=0), seg_time[keep]
    u = np.concatenate([[0.0], np.cumsum(seg_time)])
    # In u, speed 1 means some joint at its vmax; acceleration bound in u-units per s^2.
    direction = np.abs(seg) / seg_time[:, None]  # |dq/du| per segment, <= vmax
    a_u = float((amax / np.maximum(direction.max(axis=0), 1e-12)).min())
    s = _trapezoid(float(u[-1]), 1.0, a_u, dt)
    out = np.empty((len(s), n))
    for j in range(n):
        out[:, j] = np.interp(s, u, points[:, j])
    return out
