"""Predicate scoring: from the environment's per-substep signals to GSR and TSR flags.

Scoring lives here, never in the environment: the env records the signals the task's
compiled predicates declare (:func:`signal_plan`, reported in ``info["signals"]``), and
:class:`EpisodeScorer` evaluates the task file's ``:grasp`` and ``:goal`` on them every
control step; the choice rules sit below it (:mod:`rsb_mj.scoring.outcome`). A goal task's
environment reports its ``:goal`` relations' truths (:class:`~rsb_mj.scoring.signals.
GoalSignals`), which the same :class:`EpisodeScorer`, with no choice to track, holds.
"""

from rsb_mj.scoring.expression import CompiledExpression
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.scoring.predicates import PREDICATES, Predicate, get_predicate
from rsb_mj.scoring.scorer import EpisodeScorer, signal_plan
from rsb_mj.scoring.signals import SignalPlan, StepSignals

__all__ = [
    "PREDICATES",
    "CompiledExpression",
    "EpisodeScorer",
    "Outcome",
    "Predicate",
    "SignalPlan",
    "StepSignals",
    "get_predicate",
    "signal_plan",
]
