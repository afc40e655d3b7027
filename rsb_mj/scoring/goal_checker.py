"""The goal checker: a goal task's ``:goal`` conjunction on live MuJoCo data.

:class:`GoalChecker` binds each term of a goal :class:`~rsb_mj.lang.task.Task`'s goal (its
``On``/``In`` relations, then its fixture-state atoms) to the compiled scene through the one
predicate registry (:mod:`rsb_mj.scoring.predicates`): each term is the variant of its
predicate for the task's source semantics (``libero`` or ``vla_arena``,
:meth:`~rsb_mj.scoring.predicates.base.Predicate.scene_term`). Success is the conjunction
holding for :data:`~rsb_mj.scoring.outcome.HOLD_STEPS` consecutive control steps
(docs/goal_tasks.md).
"""

from __future__ import annotations

import mujoco

from rsb_mj.errors import SceneError
from rsb_mj.lang.task import Relation, StateAtom, Task
from rsb_mj.scene.categories.articulated import light_burners
from rsb_mj.scene.compiler import state_joints
from rsb_mj.scoring.predicates import get_predicate
from rsb_mj.scoring.predicates.base import SceneTerm
from rsb_mj.scoring.predicates.fixture_state import STATE_SEMANTICS, fixture_state


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
        self._terms: list[SceneTerm] = [self._bind(rel) for rel in task.goal]
        self._terms += [self._bind(atom) for atom in task.goal_states]
        semantics = STATE_SEMANTICS[task.semantics]
        #: Burner site id -> the stove's joints' qpos addresses (lit while it is on).
        self._burners: dict[int, tuple[int, ...]] = {}
        for name, category in task.fixtures.items():
            sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, f"{name}/burner")
            joints = state_joints(model, task, name)
            if sid >= 0 and joints and "turnon" in semantics.get(category, {}):
                self._burners[sid] = tuple(int(model.jnt_qposadr[j]) for j in joints)

    def _bind(self, atom: Relation | StateAtom) -> SceneTerm:
        where = f"{self.task.path}:{atom.span.line}:{atom.span.column}"
        cls = get_predicate(atom.predicate, where=where, semantics=self.task.semantics)
        return cls.scene_term(self, atom)

    def ids(self, rel: Relation) -> tuple[int, int]:
        """The body id of ``rel``'s mover and the body (``kind`` ``object``) or site id of
        its place.

        Raises:
            SceneError: when the model lacks either, at the relation's position.
        """
        model, task = self.model, self.task
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
        return a, b

    @property
    def relations(self) -> tuple[Relation | StateAtom, ...]:
        """The goal's terms in the order :meth:`terms` reports them: its ``On``/``In``
        relations, then its fixture-state atoms."""
        return (*self.task.goal, *self.task.goal_states)

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
        return [term(data) for term in self._terms]

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


__all__ = ["GoalChecker"]
