"""Collision-free joint-space paths: direct segment first, RRT-Connect with shortcutting next.

Paths are lists of joint vectors (K, n) [rad] for one arm; collisions come from a
:class:`~rsb_mj.expert.collision.CollisionChecker` (MuJoCo's own narrow phase). Every random
draw comes from the generator passed in, so the same seed gives the same path.
"""

from __future__ import annotations

import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import CollisionChecker


class _Tree:
    def __init__(self, root: np.ndarray) -> None:
        self.nodes = [root]
        self.parent = [-1]

    def nearest(self, q: np.ndarray) -> int:
        return int(np.argmin(np.abs(np.asarray(self.nodes) - q).max(axis=1)))

    def add(self, q: np.ndarray, parent: int) -> int:
        self.nodes.append(q)
        self.parent.append(parent)
        return len(self.nodes) - 1

    def path_to_root(self, i: int) -> list[np.ndarray]:
        out = []
        while i >= 0:
            out.append(self.nodes[i])
            i = self.parent[i]
        return out


def _extend(
    tree: _Tree, q: np.ndarray, checker: CollisionChecker, step: float, resolution: float
) -> tuple[str, int]:
    """Grow ``tree`` one step towards ``q``: ("reached"|"advanced"|"trapped", node id)."""
    i = tree.nearest(q)
    near = tree.nodes[i]
    delta = q - near
    dist = np.abs(delta).max()
    new = q if dist <= step else near + delta * (step / dist)
    if not checker.segment_free(near, new, resolution):
        return "trapped", i
    j = tree.add(new, i)
    return ("reached" if dist <= step else "advanced"), j


def _connect(
    tree: _Tree, q: np.ndarray, checker: CollisionChecker, step: float, resolution: float
) -> tuple[str, int]:
    while True:
        status, j = _extend(tree, q, checker, step, resolution)
        if status != "advanced":
            return status, j


def shortcut(
    path: list[np.ndarray],
    checker: CollisionChecker,
    rng: np.random.Generator,
    *,
    iterations: int = 60,
    resolution: float = 0.03,
) -> list[np.ndarray]:
    """Remove detours: join random pairs of waypoints whose straight segment is free."""
    path = list(path)
    for _ in range(iterations):
        if len(path) <= 2:
            break
        i, j = sorted(rng.choice(len(path), size=2, replace=False))
        if j - i < 2:
            continue
        if checker.segment_free(path[i], path[j], resolution):
            path = path[: i + 1] + path[j:]
    return path


def plan_path(
    checker: CollisionChecker,
    q_start: np.ndarray,
    q_goal: np.ndarray,
    rng: np.random.Generator,
    *,
    lower: np.ndarray,
    upper: np.ndarray,
    step: float = 0.25,
    resolution: float = 0.03,
    max_iters: int = 3000,
) -> np.ndarray:
    """A collision-free joint path from ``q_start`` to ``q_goal``.

    Tries the straight segment first; otherwise runs RRT-Connect inside ``[lower, upper]``
    and shortcuts the result.

    Args:
        checker: collision checker whose scene is already set.
        q_start: start joints [rad], shape (n,).
        q_goal: goal joints [rad], shape (n,).
        rng: the generator every sample comes from.
        lower: lower joint bounds for sampling [rad].
        upper: upper joint bounds for sampling [rad].
        step: RRT step, largest joint change per edge [rad].
        resolution: collision-check spacing along edges [rad].
        max_iters: RRT iterations before giving up.

    Returns:
        The waypoints, shape (K, n), first ``q_start`` and last ``q_goal``.

    Raises:
        ExpertError: if the goal is in collision or no path is found, naming the contacts.
    """
    q_start = np.asarray(q_start, float)
    q_goal = np.asarray(q_goal, float)
    if checker.in_collision(q_goal):
        pairs = checker.colliding_pairs(q_goal)
        raise ExpertError(f"planning: goal configuration is in collision: {pairs}")
    if checker.segment_free(q_start, q_goal, resolution):
        return np.stack([q_start, q_goal])
    trees = (_Tree(q_start), _Tree(q_goal))
    a, b = 0, 1
    for _ in range(max_iters):
        sample = rng.uniform(lower, upper)
        status, i = _extend(trees[a], sample, checker, step, resolution)
        if status != "trapped":
            status2, j = _connect(trees[b], trees[a].nodes[i], checker, step, resolution)
            if status2 == "reached":
                half_a = trees[a].path_to_root(i)[::-1]
                half_b = trees[b].path_to_root(j)[1:]
                path = half_a + half_b
                if a == 1:
                    path = path[::-1]
                path = shortcut(path, checker, rng, resolution=resolution)
                return np.stack(path)
        a, b = b, a
    raise ExpertError(
        f"planning: no collision-free path found in {max_iters} RRT-Connect iterations"
    )
