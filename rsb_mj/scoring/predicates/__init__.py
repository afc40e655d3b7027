"""Scoring predicates, one module per concept, in one registry by name.

Every predicate a task file can have scored is registered once (:data:`PREDICATES`), with a
variant per source semantics it has (:attr:`Predicate.variants`): ``Grasped`` (RSB
Appendix C) and ``Released`` (``rsb``), ``In`` and ``On`` (``rsb``: answer zone, on a
candidate; ``libero`` / ``vla_arena``: LIBERO's site and object tests), ``Open``, ``Close``,
``TurnOn`` and ``TurnOff`` (``libero`` / ``vla_arena``: fixture joint states). A task-file
predicate without a variant for its task's semantics cannot be scored
(:func:`get_predicate` raises ``EvalError``).
"""

from rsb_mj.scoring.predicates.base import PREDICATES, Predicate, get_predicate, register
from rsb_mj.scoring.predicates.fixture_state import Close, Open, TurnOff, TurnOn
from rsb_mj.scoring.predicates.grasped import Grasped
from rsb_mj.scoring.predicates.in_region import In
from rsb_mj.scoring.predicates.on import On
from rsb_mj.scoring.predicates.released import Released

__all__ = [
    "PREDICATES",
    "Close",
    "Grasped",
    "In",
    "On",
    "Open",
    "Predicate",
    "Released",
    "TurnOff",
    "TurnOn",
    "get_predicate",
    "register",
]
