"""Predicate scoring: from the environment's per-substep signals to GSR and TSR flags.

Scoring lives here, never in the environment: the env reports raw signals
(``info["signals"]``), :class:`EpisodeScorer` evaluates the task file's ``:grasp`` and
``:goal`` on them every control step.
"""

from rsb_mj.scoring.expression import CompiledExpression
from rsb_mj.scoring.predicates import PREDICATES, Predicate, get_predicate
from rsb_mj.scoring.scorer import EpisodeScorer, Outcome
from rsb_mj.scoring.signals import StepSignals

__all__ = [
    "PREDICATES",
    "CompiledExpression",
    "EpisodeScorer",
    "Outcome",
    "Predicate",
    "StepSignals",
    "get_predicate",
]
