"""Scoring predicates, one module each, collected in a registry by name.

``Grasped`` (RSB Appendix C), ``In`` (answer zone), ``On`` (on a candidate) and
``Released``. A task-file predicate without an entry here cannot be scored
(:func:`get_predicate` raises ``EvalError``).
"""

from rsb_mj.scoring.predicates.base import PREDICATES, Predicate, get_predicate, register
from rsb_mj.scoring.predicates.grasped import Grasped
from rsb_mj.scoring.predicates.in_region import In
from rsb_mj.scoring.predicates.on import On
from rsb_mj.scoring.predicates.released import Released

__all__ = [
    "PREDICATES",
    "Grasped",
    "In",
    "On",
    "Predicate",
    "Released",
    "get_predicate",
    "register",
]
