"""The base class and registry of scoring predicates: every predicate a task file can have
scored, registered once by name, with one variant per source semantics it has.

A task's source decides the semantics (:func:`rsb_mj.lang.task.task_semantics`): ``"rsb"``
for a question task, ``"libero"`` or ``"vla_arena"`` for a goal task. A predicate lists the
semantics it has a variant for (:attr:`Predicate.variants`):

* ``"rsb"``: :meth:`Predicate.evaluate` on the recorded :class:`StepSignals` (below);
* ``"libero"`` / ``"vla_arena"``: :meth:`Predicate.scene_term`, a truth read from the live
  MuJoCo data of a goal scene, with that source's thresholds, bound by
  :class:`~rsb_mj.scoring.goal_checker.GoalChecker`.

An ``rsb`` predicate's first argument is the object it talks about (its *subject*: a
candidate, or an object the task names, such as Act2Answer's cube). It is evaluated once per
control step on that step's :class:`StepSignals` and answers, for every physics substep and
every object on the signals' object axis M, whether it holds: a bool array of shape (S, M).
A predicate with a *support* (``(On cube ?answer)``: a candidate as its second argument)
answers per object and candidate, shape (S, M, N).

Each predicate declares the signals it reads (:attr:`Predicate.signals`); the environment
records the union over a task's compiled predicates (:class:`rsb_mj.scoring.SignalPlan`).
Predicates may keep state across steps (``Grasped`` counts consecutive substeps of
contact); :meth:`Predicate.reset` clears it at the start of an episode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

import mujoco
import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.task import Relation, StateAtom, Task
from rsb_mj.scoring.signals import StepSignals

#: One goal term bound to a compiled scene: its truth on the scene's live data.
SceneTerm = Callable[[mujoco.MjData], bool]
#: The semantics a predicate can have a variant for (:func:`rsb_mj.lang.task.task_semantics`).
SOURCE_SEMANTICS = ("rsb", "libero", "vla_arena")


class GoalScene(Protocol):
    """What a goal-scene variant binds to (:class:`~rsb_mj.scoring.goal_checker.GoalChecker`):
    the compiled scene, the goal task (its :attr:`~rsb_mj.lang.task.Task.semantics` picks the
    variant) and the checker's lookups."""

    model: mujoco.MjModel
    task: Task

    def ids(self, rel: Relation) -> tuple[int, int]:
        """The mover's body id and the place's body or site id."""
        ...

    def touching(self, data: mujoco.MjData, body_a: int, body_b: int) -> bool:
        """Whether a geom of ``body_a``'s subtree touches one of ``body_b``'s."""
        ...


#: Registered predicate classes by canonical name (see :func:`register`).
PREDICATES: dict[str, type[Predicate]] = {}


class Predicate:
    """A predicate whose first argument is the object it talks about.

    Attributes:
        name: canonical spelling, as in task files (``"Grasped"``).
        params: names of the name arguments after the subject (and the support), e.g.
            ``("region",)`` for ``In``.
        support: True when the second argument is a candidate the subject relates to
            (``On``): :meth:`evaluate` returns (S, M, N).
        place: True when the predicate says where its subject is (``In``, ``On``): the
            goal's place, which the expert moves the subject to and records report as
            ``in_zone``.
        signals: the signals :meth:`evaluate` reads (keys of
            :data:`rsb_mj.scoring.signals.SIGNAL_SHAPES`).
        variants: the semantics (:data:`SOURCE_SEMANTICS`) this predicate has a variant for:
            ``"rsb"`` evaluates signals (:meth:`evaluate`), ``"libero"`` / ``"vla_arena"`` a
            goal scene (:meth:`scene_term`).
    """

    name: ClassVar[str]
    params: ClassVar[tuple[str, ...]] = ()
    support: ClassVar[bool] = False
    place: ClassVar[bool] = False
    signals: ClassVar[tuple[str, ...]] = ()
    variants: ClassVar[frozenset[str]] = frozenset({"rsb"})

    def __init__(
        self, args: tuple[str, ...] = (), *, where: str = "", zones: tuple[str, ...] = ()
    ) -> None:
        """Bind the name arguments after the subject (and the support).

        Args:
            args: the remaining argument names, e.g. ``("table_answer_zone",)``.
            where: ``path:line:col`` of the atom, for error messages.
            zones: full names of the task's answer-zone regions (the regions with an
                ``in_zone`` signal; :attr:`rsb_mj.lang.ast.Problem.answer_zone_names`).

        Raises:
            EvalError: when the argument count differs from :attr:`params`.
        """
        if len(args) != len(self.params):
            raise EvalError(
                f"{where}: ({self.name} ...) takes {len(self.roles())} argument(s) "
                f"({', '.join(self.roles())}), got {1 + int(self.support) + len(args)}"
            )
        self.args = args
        self.where = where
        self.zones = zones

    @classmethod
    def roles(cls) -> tuple[str, ...]:
        """The arguments' roles, e.g. ``("object", "candidate")`` for ``On``."""
        return ("object", *(("candidate",) if cls.support else ()), *cls.params)

    def reset(self) -> None:
        """Forget any state kept from a previous episode."""

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """The ``rsb`` variant: truth per substep and object, bool (S, M); with a support
        (S, M, N).

        Raises:
            EvalError: for a predicate without an ``rsb`` variant (:func:`get_predicate`
                never returns one for ``rsb`` semantics).
        """
        raise EvalError(f"{self.where}: ({self.name} ...) has no rsb variant")

    @classmethod
    def scene_term(cls, checker: GoalScene, atom: Relation | StateAtom) -> SceneTerm:
        """The ``libero`` / ``vla_arena`` variant (``checker.task.semantics``): ``atom``
        bound to ``checker``'s compiled scene, its truth read from live data.

        Raises:
            SceneError: when the scene lacks what ``atom`` names.
            EvalError: for a predicate without a goal-scene variant.
        """
        raise EvalError(f"({atom.text}): {cls.name} has no {checker.task.semantics} variant")


def register(cls: type[Predicate]) -> type[Predicate]:
    """Class decorator adding ``cls`` to :data:`PREDICATES` under ``cls.name``."""
    PREDICATES[cls.name] = cls
    return cls


def get_predicate(name: str, *, where: str = "", semantics: str = "rsb") -> type[Predicate]:
    """The predicate class called ``name`` (case-insensitive, like task files) that has a
    variant for ``semantics`` (:data:`SOURCE_SEMANTICS`; ``"rsb"``: a question task's
    signals).

    Raises:
        EvalError: for a name without a variant for ``semantics``, listing the valid ones.
    """
    valid = {key: cls for key, cls in PREDICATES.items() if semantics in cls.variants}
    for key, cls in valid.items():
        if key.lower() == name.lower():
            return cls
    raise EvalError(
        f"{where}: predicate {name!r} cannot be scored; valid choices: " + ", ".join(sorted(valid))
    )
