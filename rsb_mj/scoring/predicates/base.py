"""The base class and registry of scoring predicates.

A predicate is evaluated once per control step on that step's :class:`StepSignals` and
answers, for every physics substep and every candidate, whether it holds with that
candidate as its first argument: a bool array of shape (S, N). Predicates may keep state
across steps (``Grasped`` counts consecutive substeps of contact); :meth:`Predicate.reset`
clears it at the start of an episode.
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
    """A predicate whose first argument is a candidate object.

    Attributes:
        name: canonical spelling, as in task files (``"Grasped"``).
        params: names of the arguments after the candidate (e.g. ``("region",)`` for ``In``).
    """

    name: ClassVar[str]
    params: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, args: tuple[str, ...] = (), *, where: str = "", zones: tuple[str, ...] = ()
    ) -> None:
        """Bind the arguments after the candidate.

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
                f"{where}: ({self.name} ...) takes {1 + len(self.params)} argument(s) "
                f"(candidate{''.join(', ' + p for p in self.params)}), got {1 + len(args)}"
            )
        self.args = args
        self.where = where
        self.zones = zones

    def reset(self) -> None:  # noqa: B027 - stateless predicates need nothing
        """Forget any state kept from a previous episode."""

    @abstractmethod
    def evaluate(self, signals: StepSignals) -> np.ndarray:
        """Truth per substep and candidate: bool array of shape (S, N)."""


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
