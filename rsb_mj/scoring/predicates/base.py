"""The base class and registry of scoring predicates.

A predicate's first argument is the object it talks about (its *subject*: a candidate, or
an object the task names, such as Act2Answer's cube). It is evaluated once per control step
on that step's :class:`StepSignals` and answers, for every physics substep and every object
on the signals' object axis M, whether it holds: a bool array of shape (S, M). A predicate
with a *support* (``(On cube ?answer)``: a candidate as its second argument) answers per
object and candidate, shape (S, M, N).

Each predicate declares the signals it reads (:attr:`Predicate.signals`); the environment
records the union over a task's compiled predicates (:class:`rsb_mj.scoring.SignalPlan`).
Predicates may keep state across steps (``Grasped`` counts consecutive substeps of
contact); :meth:`Predicate.reset` clears it at the start of an episode.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.scoring.signals import StepSignals

#: Registered predicate classes by canonical name (see :func:`register`).
PREDICATES: dict[str, type[Predicate]] = {}


class Predicate(ABC):
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
    """

    name: ClassVar[str]
    params: ClassVar[tuple[str, ...]] = ()
    support: ClassVar[bool] = False
    place: ClassVar[bool] = False
    signals: ClassVar[tuple[str, ...]] = ()

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

    def reset(self) -> None:  # noqa: B027 - stateless predicates need nothing
        """Forget any state kept from a previous episode."""

    @abstractmethod
    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and object, bool (S, M); with a support (S, M, N)."""


def register(cls: type[Predicate]) -> type[Predicate]:
    """Class decorator adding ``cls`` to :data:`PREDICATES` under ``cls.name``."""
    PREDICATES[cls.name] = cls
    return cls


def get_predicate(name: str, *, where: str = "") -> type[Predicate]:
    """The predicate class called ``name`` (case-insensitive, like task files).

    Raises:
        EvalError: for a name without a scoring implementation, listing the valid ones.
    """
    for key, cls in PREDICATES.items():
        if key.lower() == name.lower():
            return cls
    raise EvalError(
        f"{where}: predicate {name!r} cannot be scored; valid choices: "
        + ", ".join(sorted(PREDICATES))
    )
