"""Goal predicates of LIBERO / VLA-Arena task files, with each source's semantics.

Pure functions of positions (world frame, metres), so they are tested on hand-made states:

* ``On(a, b)``, b an object or fixture (LIBERO's ``check_ontop``): b's origin is not above
  a's (``z_b <= z_a``), some geom of a touches some geom of b, and the origins' xy distance
  is below ``xy_tol``: 0.03 m in LIBERO, 0.07 m in VLA-Arena
  (:data:`rsb_mj.lang.task.SEMANTICS`).
* ``On(a, site)`` (LIBERO's ``SiteObject.under``): a's origin, in the site frame, is within
  the site's half-size in x and y and between ``hz - 0.005`` and ``hz + 0.10`` above the
  site's origin (``hz``: the site's half height).
* ``In(a, site)`` (``SiteObject.in_box``): a's origin inside the site's axis-aligned box, its
  floor lowered by 0.01 m. A drawer's region site is on the drawer's body, so it moves with
  the drawer (an object stays ``In`` while the drawer is closed).
* ``Open(X)``, ``Close(X)``, ``TurnOn(X)``, ``TurnOff(X)`` (LIBERO's ``ObjectState`` /
  ``SiteObjectState``, identical in VLA-Arena): X a whole fixture reads every joint of it,
  ``Open``/``TurnOn`` holding when **any** joint passes and ``Close``/``TurnOff`` when
  **all** do; X a region site (``wooden_cabinet_1_top_region``) reads only the joints of the
  body carrying it (that drawer's). Each joint passes its fixture class's test
  (:data:`FIXTURE_STATES`, LIBERO's ``articulated_objects.py``): a cabinet drawer is open
  below -0.14 m and closed above 0 (the last centimetre of travel, pushed past 0); the
  microwave open below -1.3 rad and closed above -0.005 rad; the stove on at >= 0.5 rad and
  off below 0 (a knob at exactly 0, its default, is neither). The thresholds are the same in
  both sources; :data:`STATE_SEMANTICS` keeps them per source as :data:`SEMANTICS` does the
  ``On`` distance.

:class:`GoalChecker` evaluates a goal :class:`~rsb_mj.lang.task.Task`'s goal conjunction
on live MuJoCo data. Success is that conjunction holding for :data:`HOLD_STEPS` consecutive
control steps (docs/goal_tasks.md).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.lang.task import Relation, StateAtom, Task
from rsb_mj.scene.categories.articulated import light_burners
from rsb_mj.scene.compiler import state_joints, state_owner

#: Height window above a site within which ``On(a, site)`` holds [m] (LIBERO's
#: ``other_height``).
ON_SITE_HEIGHT = 0.10
#: Tolerance below the site's top for ``On(a, site)`` [m].
ON_SITE_BELOW = 0.005
#: How far ``In(a, site)`` lowers the site box's floor [m].
IN_FLOOR = 0.01
#: Consecutive control steps the goal must hold for success (0.5 s at 20 Hz).
HOLD_STEPS = 10


@dataclass(frozen=True)
class JointTest:
    """One fixture-state test on a joint position: ``qpos OP threshold``.

    Attributes:
        op: ``"<"``, ``">"`` or ``">="`` (LIBERO's comparisons, kept exactly).
        threshold: [m or rad].
    """

    op: str
    threshold: float

    def __call__(self, qpos: float) -> bool:
        return bool(_OPS[self.op](float(qpos), self.threshold))


_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    ">": operator.gt,
    ">=": operator.ge,
}
_CABINET = {"open": JointTest("<", -0.14), "close": JointTest(">", 0.0)}
#: Fixture category -> state (``open``, ``close``, ``turnon``, ``turnoff``) -> the test each
#: joint passes (LIBERO 8f1084e ``envs/objects/articulated_objects.py``: ``is_open`` is
#: ``qpos < max(default_open_ranges)`` ...; VLA-Arena's file has the same values).
FIXTURE_STATES: dict[str, dict[str, JointTest]] = {
    "wooden_cabinet": _CABINET,
    "white_cabinet": _CABINET,
    "microwave": {"open": JointTest("<", -1.3), "close": JointTest(">", -0.005)},
    "flat_stove": {"turnon": JointTest(">=", 0.5), "turnoff": JointTest("<", 0.0)},
    "short_cabinet": {"open": JointTest(">", 0.10), "close": JointTest("<", 0.0)},
    "short_fridge": {"open": JointTest(">", 2.0), "close": JointTest("<", 0.0)},
}
#: Per source, the fixture-state tests (identical in LIBERO and VLA-Arena).
STATE_SEMANTICS: dict[str, dict[str, dict[str, JointTest]]] = {
    "libero": FIXTURE_STATES,
    "vla_arena": FIXTURE_STATES,
}


def fixture_state(state: str, tests: dict[str, JointTest], qpos: list[float]) -> bool:
    """``Open``/``TurnOn`` (``state`` ``open``/``turnon``): any of ``qpos`` passes
    ``tests[state]``; ``Close``/``TurnOff``: all do (LIBERO's ``any``/``all`` over the
    joints; no joint: False, as its loops return)."""
    test = tests[state]
    if not qpos:
        return False
    if state in ("open", "turnon"):
        return any(test(q) for q in qpos)
    return all(test(q) for q in qpos)


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
    """Evaluates a goal task's ``:goal`` conjunction on a compiled goal scene: its ``On``/
    ``In`` relations, then its fixture-state atoms (:attr:`relations`).

    Args:
        model: the compiled scene (bodies named after the objects and fixtures, sites
            ``{target}_{region}``; a tier B scene's fixture joints).
        task: the goal task.

    Raises:
        SceneError: when a goal names a body or site the model lacks, or a fixture state on
            something without joints (a static prop) or with no such state.
    """

    def __init__(self, model: mujoco.MjModel, task: Task) -> None:
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
        semantics = STATE_SEMANTICS[task.semantics]
        self._states: list[tuple[StateAtom, str, dict[str, JointTest], tuple[int, ...]]] = []
        for atom in task.goal_states:
            self._states.append((atom, *self._state_reader(atom, semantics)))
        #: Burner site id -> the stove's joints' qpos addresses (lit while it is on).
        self._burners: dict[int, tuple[int, ...]] = {}
        for name, category in task.fixtures.items():
            sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f"{name}/burner")
            joints = state_joints(model, task, name)
            if sid >= 0 and joints and "turnon" in semantics.get(category, {}):
                self._burners[sid] = tuple(int(model.jnt_qposadr[j]) for j in joints)

    def _state_reader(
        self, atom: StateAtom, semantics: dict[str, dict[str, JointTest]]
    ) -> tuple[str, dict[str, JointTest], tuple[int, ...]]:
        task, model = self.task, self.model
        where = f"{task.path}:{atom.span.line}:{atom.span.column}"
        owner = state_owner(task, atom.target)
        if owner is None:
            raise SceneError(
                f"{where}: ({atom.text}): {atom.target!r} is no fixture or region of one"
            )
        category = task.fixtures[owner]
        tests = semantics.get(category, {})
        key = atom.predicate.lower()
        if key not in tests:
            valid = ", ".join(sorted(tests)) or "none"
            raise SceneError(
                f"{where}: ({atom.text}): a {category} has no {key!r} state (its states: {valid})"
            )
        joints = state_joints(model, task, atom.target)
        if not joints:
            raise SceneError(
                f"{where}: ({atom.text}): the scene's {owner!r} has no joint there (a static prop)"
            )
        return key, tests, tuple(int(model.jnt_qposadr[j]) for j in joints)

    @property
    def relations(self) -> tuple[Relation | StateAtom, ...]:
        """The goal's terms in the order :meth:`terms` reports them: its ``On``/``In``
        relations, then its fixture-state atoms."""
        return (*self.task.goal, *(atom for atom, *_ in self._states))

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
        """Each goal term's truth value now (:attr:`relations`' order)."""
        out = []
        for rel, a, b in self._terms:
            pos_a = data.xpos[a]
            if rel.kind == "object":
                ok = on_object(pos_a, data.xpos[b], self.touching(data, a, b), self.task.on_xy)
            else:
                site = (data.site_xpos[b], data.site_xmat[b], self.model.site_size[b])
                ok = on_site(pos_a, *site) if rel.predicate == "On" else in_site(pos_a, *site)
            out.append(ok)
        for _, key, tests, adrs in self._states:
            out.append(fixture_state(key, tests, [float(data.qpos[a]) for a in adrs]))
        return out

    def holds(self, data: mujoco.MjData) -> bool:
        """True when every goal term holds now."""
        return all(self.terms(data))

    def light(self, data: mujoco.MjData) -> None:
        """Light each stove's burner site while the stove is on (any joint passes
        ``turnon``; LIBERO updates it every step); rendering only, no physics."""
        if not self._burners:
            return
        tests = STATE_SEMANTICS[self.task.semantics]["flat_stove"]
        light_burners(
            self.model,
            {
                sid: fixture_state("turnon", tests, [float(data.qpos[a]) for a in adrs])
                for sid, adrs in self._burners.items()
            },
        )
