"""``In``: the object rests inside a region, one variant per source's semantics.

* ``rsb`` (``(In ?x REGION)``): the environment reports one region signal, ``in_zone``: the
  object center's xy lies inside the answer zone and the object rests low (lift < 0.02 m).
  So ``REGION`` must be an answer-zone region: one the task declares with
  ``(:answer_zone ...)`` (``zones``).
* ``libero`` / ``vla_arena`` (a goal task's ``In(a, site)``, LIBERO's ``SiteObject.in_box``,
  identical in VLA-Arena; :func:`in_site`): a's origin inside the site's axis-aligned box
  (world frame [m]), its floor lowered by :data:`IN_FLOOR`. A drawer's region site is on the
  drawer's body, so it moves with the drawer (an object stays ``In`` while the drawer is
  closed). An object or fixture as the place (``In(a, b)``, b no site) is read as ``On``'s
  object test (:func:`~rsb_mj.scoring.predicates.on.on_object`).
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.task import Relation, StateAtom
from rsb_mj.scoring.predicates.base import GoalScene, Predicate, SceneTerm, register
from rsb_mj.scoring.predicates.on import On
from rsb_mj.scoring.signals import StepSignals

#: How far ``In(a, site)`` lowers the site box's floor [m].
IN_FLOOR = 0.01


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


@register
class In(Predicate):
    """The object is inside the answer zone, resting."""

    name = "In"
    params = ("region",)
    place = True
    signals = ("in_zone",)
    variants = frozenset({"rsb", "libero", "vla_arena"})

    def __init__(
        self, args: tuple[str, ...] = (), *, where: str = "", zones: tuple[str, ...] = ()
    ) -> None:
        super().__init__(args, where=where, zones=zones)
        if args[0] not in zones:
            valid = ", ".join(zones) if zones else "none (the task declares no :answer_zone)"
            raise EvalError(
                f"{where}: (In ?x {args[0]}) cannot be scored: only the answer zone has a "
                f"signal; valid choices: {valid}"
            )

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and object, shape (S, M)."""
        return signals.in_zone.copy()

    @classmethod
    def scene_term(cls, checker: GoalScene, atom: Relation | StateAtom) -> SceneTerm:
        """``In(a, site)`` on ``checker``'s scene (:func:`in_site`); b an object or fixture:
        ``On``'s object test."""
        assert isinstance(atom, Relation)
        if atom.kind == "object":
            return On.scene_term(checker, atom)
        a, b = checker.ids(atom)
        model = checker.model

        def in_b(data: mujoco.MjData) -> bool:
            return in_site(data.xpos[a], data.site_xpos[b], data.site_xmat[b], model.site_size[b])

        return in_b
