"""Scoring a goal task's episode: the ``:goal`` conjunction held for a while.

The environment (:class:`rsb_mj.env.goal_env.GoalEnv`) evaluates each goal relation every
control step (:class:`~rsb_mj.scoring.goal_predicates.GoalChecker`) and reports the truths
in ``info["signals"]`` as :class:`GoalSignals`; :class:`GoalScorer` turns them into the
:class:`~rsb_mj.scoring.outcome.Outcome` the runner's rollout reads, as
:class:`~rsb_mj.scoring.scorer.EpisodeScorer` does for a question task: **success** is the
conjunction holding for :data:`~rsb_mj.scoring.goal_predicates.HOLD_STEPS` consecutive
control steps (decided at the last of them, ``success_step``); an episode that ends
otherwise fails, and :attr:`Outcome.void_reason` then names each relation's truth at its
last step (``goal not held (On apple_1 plate_1: False)``). A goal task has no candidates and
no choice: ``choice`` stays None and ``grasped`` False.
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.lang.goal_task import Relation, StateAtom
from rsb_mj.scoring.goal_predicates import HOLD_STEPS
from rsb_mj.scoring.outcome import Outcome


@dataclass(frozen=True)
class GoalSignals:
    """One control step's goal truths (``info["signals"]`` of a goal environment).

    Attributes:
        relations: the goal's terms: its ``On``/``In`` relations, source order, then its
            fixture-state atoms (``Open X`` ...; :attr:`GoalChecker.relations`).
        truths: whether each holds at the end of the step.
    """

    relations: tuple[Relation | StateAtom, ...]
    truths: tuple[bool, ...]

    @property
    def holds(self) -> bool:
        """The whole conjunction holds."""
        return all(self.truths)

    def describe(self) -> str:
        """Each relation and its truth (``On apple_1 plate_1: False; ...``)."""
        return "; ".join(
            f"{r.text}: {ok}" for r, ok in zip(self.relations, self.truths, strict=True)
        )


class GoalScorer:
    """Scores one goal episode from its :class:`GoalSignals` (module docstring).

    Attributes:
        outcome: the :class:`Outcome` so far.
        held: consecutive control steps the goal has held up to the last one scored.
    """

    def __init__(self, hold_steps: int = HOLD_STEPS) -> None:
        self.hold_steps = hold_steps
        self.outcome = Outcome()
        self.held = 0
        self._last: GoalSignals | None = None

    def update(self, signals: GoalSignals) -> Outcome:
        """Score one control step; once ``outcome.decided`` nothing changes any more."""
        out = self.outcome
        if out.decided:
            return out
        out.steps += 1
        self._last = signals
        holds = signals.holds
        self.held = self.held + 1 if holds else 0
        out.goal_final = holds
        if self.held >= self.hold_steps:
            out.success = out.decided = True
            out.decided_step = out.success_step = out.steps
        return out

    def success_now(self) -> bool:
        """Whether the episode is a success if it ends now (only a decided one is)."""
        return self.outcome.success

    def finish(self) -> Outcome:
        """Close the episode: an undecided one failed; its ``void_reason`` names each
        relation's truth at the last step scored."""
        out = self.outcome
        if not out.decided:
            out.decided = True
            out.decided_step = out.steps or None
            last = self._last.describe() if self._last is not None else "never stepped"
            out.void_reason = f"goal not held ({last})"
        return out
