"""failure_reason: one line saying why an episode failed, the policy's own account first."""

from rsb_mj.evaluation.failure import failure_reason
from rsb_mj.policies.base import PolicyStatus
from rsb_mj.scoring.outcome import Outcome

NONE = PolicyStatus()


def _reason(outcome, termination="policy_done", status=NONE, done=True, error=None):
    return failure_reason(
        outcome,
        termination=termination,
        target="block_a",
        max_steps=400,
        policy="expert",
        status=status,
        policy_done=done,
        error=error,
    )


def test_a_success_has_no_reason_and_an_error_is_its_own_reason():
    assert _reason(Outcome(grasped=True, choice="block_a", success=True)) is None
    boom = "InfraError: env.step failed: boom"
    assert _reason(Outcome(), termination="error", error=boom) == boom


def test_the_policys_own_failure_comes_first_named_by_the_policy():
    status = PolicyStatus(phase="approach", failure="approach: no IK solution", warnings=("w",))
    assert _reason(Outcome(), status=status) == "expert: approach: no IK solution"


def test_outcome_reasons_with_the_policys_warnings():
    carry = PolicyStatus(phase="carry")
    assert (
        _reason(Outcome(), termination="step_limit", status=carry, done=False)
        == "step limit 400 reached in phase carry"
    )
    assert _reason(Outcome(), termination="step_limit", done=False) == "step limit 400 reached"
    assert _reason(Outcome()) == "no grasp detected"
    wrong = Outcome(grasped=True, choice="block_b")
    assert _reason(wrong, termination="wrong_choice") == "grasped block_b instead of block_a"
    dropped = Outcome(grasped=True, choice="block_a", correct_choice=True, in_zone=["block_c"])
    warned = PolicyStatus(phase="done", warnings=("no collision-free grasp", "tilted"))
    assert _reason(dropped, status=warned) == (
        "target not released in the zone (in zone: ['block_c']); no collision-free grasp; tilted"
    )
    assert _reason(Outcome(grasped=True, choice="block_a", correct_choice=True)) == (
        "target not released in the zone (in zone: none)"
    )


def test_no_choice_says_which_candidates_were_grasped_at_once():
    void = Outcome(
        grasped=True,
        grasped_candidates=["block_b", "block_c"],
        decided=True,
        void_reason="block_b, block_c grasped in the same control step: no choice",
    )
    assert (
        _reason(void, termination="wrong_choice")
        == "block_b, block_c grasped in the same control step: no choice"
    )


def test_goal_failures_are_classified_by_the_phase_and_the_reason():
    from rsb_mj.evaluation.failure import goal_failure_class

    def cls(reason, termination="step_limit"):
        return goal_failure_class(reason, policy="expert", termination=termination)

    assert cls(None, "success") == ""
    assert cls("reset: x.bddl: seed 0: no valid layout in 10 draws (...)", "no_layout") == "reset"
    assert cls("expert: lift: IK for site 'left/gripper': target [...] unreachable") == "reach"
    assert cls("expert: carry: no reachable pose above the zone: ...") == "reach"
    assert cls("expert: approach: object 'bowl_1' is 125 mm wide at its narrowest") == "grasp"
    assert cls("expert: lift: object 'bowl_1' not held: it rose 3 mm with the gripper") == "grasp"
    assert cls("expert: release: the gripper did not open") == "placement"
    assert cls("goal not held (On apple_1 plate_1: False)", "policy_done") == "placement"
    assert cls("step limit 600 reached in phase carry") == "policy"
    assert cls("InfraError: env.step failed: boom", "error") == "error"
    # another policy's own "not held" is its failure, not a grasp the expert measured
    assert goal_failure_class("mine: lift: not held", policy="other") == "policy"
