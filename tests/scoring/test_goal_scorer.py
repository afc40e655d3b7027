"""The goal scorer: success is the goal held for HOLD_STEPS consecutive control steps."""

from __future__ import annotations

from rsb_mj.lang.goal_task import Relation
from rsb_mj.scoring.goal_predicates import HOLD_STEPS
from rsb_mj.scoring.goal_scorer import GoalScorer, GoalSignals

RELATIONS = (
    Relation("On", "apple_1", "plate_1", "object", None),
    Relation("In", "pear_1", "basket_1_contain_region", "site", None),
)


def signals(*truths: bool) -> GoalSignals:
    return GoalSignals(RELATIONS, truths)


def test_success_needs_the_whole_goal_for_hold_steps_in_a_row():
    scorer = GoalScorer()
    assert HOLD_STEPS == 10
    scorer.update(signals(True, False))
    for _ in range(HOLD_STEPS - 1):
        scorer.update(signals(True, True))
    scorer.update(signals(False, True))  # broken at the 10th: the count starts again
    assert not scorer.outcome.decided and scorer.held == 0
    for step in range(HOLD_STEPS):
        out = scorer.update(signals(True, True))
        assert out.success == (step == HOLD_STEPS - 1)
    assert (out.success_step, out.steps, out.goal_final) == (21, 21, True)
    assert scorer.update(signals(False, False)).success  # decided: nothing changes
    assert scorer.finish().void_reason is None


def test_an_undecided_episode_fails_naming_each_relation():
    scorer = GoalScorer()
    scorer.update(signals(True, False))
    out = scorer.finish()
    assert (out.success, out.goal_final, out.choice, out.grasped) == (False, False, None, False)
    assert out.void_reason == (
        "goal not held (On apple_1 plate_1: True; In pear_1 basket_1_contain_region: False)"
    )
    assert GoalScorer().finish().void_reason == "goal not held (never stepped)"
