"""``Open(X)``, ``Close(X)``, ``TurnOn(X)``, ``TurnOff(X)``: a fixture's joint state, with
LIBERO's and VLA-Arena's semantics (``ObjectState`` / ``SiteObjectState``, identical in both;
no ``rsb`` variant: question tasks operate no fixture).

X a whole fixture reads every joint of it, ``Open``/``TurnOn`` holding when **any** joint
passes and ``Close``/``TurnOff`` when **all** do; X a region site
(``wooden_cabinet_1_top_region``) reads only the joints of the body carrying it (that
drawer's). Each joint passes its fixture class's test (:data:`FIXTURE_STATES`, LIBERO's
``articulated_objects.py``): a cabinet drawer is open below -0.14 m and closed above 0 (the
last centimetre of travel, pushed past 0); the microwave open below -1.3 rad and closed
above -0.005 rad; the stove on at >= 0.5 rad and off below 0 (a knob at exactly 0, its
default, is neither). The thresholds are the same in both sources; :data:`STATE_SEMANTICS`
keeps them per source as :data:`rsb_mj.lang.task.SEMANTICS` does the ``On`` distance.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mujoco

from rsb_mj.errors import SceneError
from rsb_mj.lang.task import Relation, StateAtom
from rsb_mj.scene.compiler import state_joints, state_owner
from rsb_mj.scoring.predicates.base import GoalScene, Predicate, SceneTerm, register


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


class FixtureState(Predicate):
    """A fixture-state predicate: its :attr:`state` read from the joints of X."""

    #: The state's key in :data:`FIXTURE_STATES` (the lowercased name).
    state: ClassVar[str]
    variants = frozenset({"libero", "vla_arena"})

    @classmethod
    def scene_term(cls, checker: GoalScene, atom: Relation | StateAtom) -> SceneTerm:
        """``atom`` (``(Open X)`` ...) on ``checker``'s scene, with the tests of its task's
        source (:data:`STATE_SEMANTICS`).

        Raises:
            SceneError: when X is no fixture or region of one, its fixture has no such
                state, or the scene's fixture has no joint there (a static prop).
        """
        assert isinstance(atom, StateAtom)
        task, model = checker.task, checker.model
        where = f"{task.path}:{atom.span.line}:{atom.span.column}"
        owner = state_owner(task, atom.target)
        if owner is None:
            raise SceneError(
                f"{where}: ({atom.text}): {atom.target!r} is no fixture or region of one"
            )
        category = task.fixtures[owner]
        tests = STATE_SEMANTICS[task.semantics].get(category, {})
        key = cls.state
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
        adrs = tuple(int(model.jnt_qposadr[j]) for j in joints)

        def holds(data: mujoco.MjData) -> bool:
            return fixture_state(key, tests, [float(data.qpos[a]) for a in adrs])

        return holds


@register
class Open(FixtureState):
    """Any joint of X is open."""

    name = "Open"
    state = "open"


@register
class Close(FixtureState):
    """Every joint of X is closed."""

    name = "Close"
    state = "close"


@register
class TurnOn(FixtureState):
    """Any joint of X (a stove's knob) is on."""

    name = "TurnOn"
    state = "turnon"


@register
class TurnOff(FixtureState):
    """Every joint of X is off."""

    name = "TurnOff"
    state = "turnoff"
