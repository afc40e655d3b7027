"""Goal predicates of LIBERO / VLA-Arena task files, with each source's semantics.

Pure functions of positions (world frame, metres), so they are tested on hand-made states:

* ``On(a, b)``, b an object or fixture (LIBERO's ``check_ontop``): b's origin is not above
  a's (``z_b <= z_a``), some geom of a touches some geom of b, and the origins' xy distance
  is below ``xy_tol``: 0.03 m in LIBERO, 0.07 m in VLA-Arena
  (:data:`rsb_mj.lang.goal_task.SEMANTICS`).
* ``On(a, site)`` (LIBERO's ``SiteObject.under``): a's origin, in the site frame, is within
  the site's half-size in x and y and between ``hz - 0.005`` and ``hz + 0.10`` above the
  site's origin (``hz``: the site's half height).
* ``In(a, site)`` (``SiteObject.in_box``): a's origin inside the site's axis-aligned box, its
  floor lowered by 0.01 m.

:class:`GoalChecker` evaluates a :class:`~rsb_mj.lang.goal_task.GoalTask`'s goal conjunction
on live MuJoCo data. Success is that conjunction holding for :data:`HOLD_STEPS` consecutive
control steps (docs/goal_tasks.md).
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.lang.goal_task import GoalTask, Relation

#: Height window above a site within which ``On(a, site)`` holds [m] (LIBERO's
#: ``other_height``).
ON_SITE_HEIGHT = 0.10
#: Tolerance below the site's top for ``On(a, site)`` [m].
ON_SITE_BELOW = 0.005
#: How far ``In(a, site)`` lowers the site box's floor [m].
IN_FLOOR = 0.01
#: Consecutive control steps the goal must hold for success (0.5 s at 20 Hz).
HOLD_STEPS = 10


def on_object(pos_a: np.ndarray, pos_b: np.ndarray, touching: bool, xy_tol: float) -> bool:
    """``On(a, b)`` for b an object: ``z_b <= z_a``, touching, xy distance < ``xy_tol`` [m]."""
    a, b = np.asarray(pos_a, float), np.asarray(pos_b, float)
    return bool(b[2] <= a[2] and touching and np.linalg.norm(a[:2] - b[:2]) < xy_tol)


def on_site(
    pos_a: np.ndarray, site_pos: np.ndarray, site_mat: np.ndarray, site_half: np.ndarray
) -> bool:
    """``On(a, site)``: a's origin above the site within its xy half-size and the height
    window (site frame; ``site_mat`` the site's 3x3 rotation, ``site_half`` its half-size)."""
    d = np.asarray(site_mat, float).reshape(3, 3).T @ (np.asarray(pos_a) - np.asarray(site_pos))
    h = np.asarray(site_half, float)
    return bool(
        h[2] - ON_SITE_BELOW < d[2] < h[2] + ON_SITE_HEIGHT and np.all(np.abs(d[:2]) < h[:2])
    )


def in_site(
    pos_a: np.ndarray, site_pos: np.ndarray, site_mat: np.ndarray, site_half: np.ndarray
) -> bool:
    """``In(a, site)``: a's origin inside the site's axis-aligned box (floor lowered by
    :data:`IN_FLOOR`)."""
    size = np.abs(np.asarray(site_mat, float).reshape(3, 3) @ np.asarray(site_half, float))
    p, c = np.asarray(pos_a, float), np.asarray(site_pos, float)
    lo, hi = c - size, c + size
    lo[2] -= IN_FLOOR
    return bool(np.all(p > lo) and np.all(p < hi))


class GoalChecker:
    """Evaluates a goal task's ``:goal`` conjunction on a compiled goal scene.

    Args:
        model: the compiled scene (bodies named after the objects and fixtures, sites
            ``{target}_{region}``).
        task: the goal task.

    Raises:
        SceneError: when a goal names a body or site the model lacks.
    """

    def __init__(self, model: mujoco.MjModel, task: GoalTask) -> None:
        self.model = model
        self.task = task
        self._terms: list[tuple[Relation, int, int]] = []
        for rel in task.goal:
            a = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, rel.mover)
            if rel.kind == "object":
                b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, rel.place)
            else:
                b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, rel.place)
            if a < 0 or b < 0:
                raise SceneError(
                    f"{task.path}:{rel.span.line}:{rel.span.column}: the goal names "
                    f"{rel.mover!r} / {rel.place!r}, which the scene does not have"
                )
            self._terms.append((rel, a, b))

    def touching(self, data: mujoco.MjData, body_a: int, body_b: int) -> bool:
        """True when a geom of body ``body_a``'s subtree touches one of ``body_b``'s."""
        root = self.model.body_rootid
        for i in range(data.ncon):
            c = data.contact[i]
            b1 = int(self.model.geom_bodyid[c.geom1])
            b2 = int(self.model.geom_bodyid[c.geom2])
            r1, r2 = int(root[b1]), int(root[b2])
            if {r1, r2} == {int(root[body_a]), int(root[body_b])} and c.dist < 0.002:
                return True
        return False

    def terms(self, data: mujoco.MjData) -> list[bool]:
        """Each goal relation's truth value now."""
        out = []
        for rel, a, b in self._terms:
            pos_a = data.xpos[a]
            if rel.kind == "object":
                ok = on_object(pos_a, data.xpos[b], self.touching(data, a, b), self.task.on_xy)
            else:
                site = (data.site_xpos[b], data.site_xmat[b], self.model.site_size[b])
                ok = on_site(pos_a, *site) if rel.predicate == "On" else in_site(pos_a, *site)
            out.append(ok)
        return out

    def holds(self, data: mujoco.MjData) -> bool:
        """True when every goal relation holds now."""
        return all(self.terms(data))
