"""``On``: the object rests on a support, one variant per source's semantics.

* ``rsb`` (``(On ?x ?c)``, Act2Answer: the cube on a plate): the second argument is a
  *support*: a candidate (``?answer``, a candidate variable or a candidate's name), so
  ``(On cube ?answer)`` holds when the cube rests on the answer's plate. The environment
  reports one signal for it, ``on`` (S, M, N): object m's center lies over candidate n's top
  face (its collision geometry's footprint, in the candidate's own frame, so a turned plate
  counts as turned) and object m rests low (lift < 0.02 m above its own resting height at
  reset, as for ``In``; so a support is at most about 2 cm tall, such as a plate).
* ``libero`` / ``vla_arena`` (a goal task's ``On(a, b)``, positions in the world frame [m]):

  * b an object or fixture (LIBERO's ``check_ontop``, :func:`on_object`): b's origin is not
    above a's (``z_b <= z_a``), some geom of a touches some geom of b, and the origins' xy
    distance is below ``xy_tol``: 0.03 m in LIBERO, 0.07 m in VLA-Arena
    (:data:`rsb_mj.lang.task.SEMANTICS`, the one difference between the two variants).
  * b a site (LIBERO's ``SiteObject.under``, :func:`on_site`): a's origin, in the site
    frame, is within the site's half-size in x and y and between ``hz - 0.005`` and
    ``hz + 0.10`` above the site's origin (``hz``: the site's half height).
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.lang.task import Relation, StateAtom
from rsb_mj.scoring.predicates.base import GoalScene, Predicate, SceneTerm, register
from rsb_mj.scoring.signals import StepSignals

#: Height window above a site within which ``On(a, site)`` holds [m] (LIBERO's
#: ``other_height``).
ON_SITE_HEIGHT = 0.10
#: Tolerance below the site's top for ``On(a, site)`` [m].
ON_SITE_BELOW = 0.005


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


@register
class On(Predicate):
    """The object rests on the candidate."""

    name = "On"
    support = True
    place = True
    signals = ("on",)
    variants = frozenset({"rsb", "libero", "vla_arena"})

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep, object and candidate, shape (S, M, N)."""
        return signals.on.copy()

    @classmethod
    def scene_term(cls, checker: GoalScene, atom: Relation | StateAtom) -> SceneTerm:
        """``On(a, b)`` on ``checker``'s scene: :func:`on_object` with the task's source's
        xy distance, or :func:`on_site`."""
        assert isinstance(atom, Relation)
        a, b = checker.ids(atom)
        model = checker.model
        if atom.kind == "object":
            xy_tol = checker.task.on_xy

            def on_b(data: mujoco.MjData) -> bool:
                return on_object(data.xpos[a], data.xpos[b], checker.touching(data, a, b), xy_tol)

            return on_b

        def on_b_site(data: mujoco.MjData) -> bool:
            return on_site(data.xpos[a], data.site_xpos[b], data.site_xmat[b], model.site_size[b])

        return on_b_site
