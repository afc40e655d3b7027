"""EpisodeScorer: one attempt per episode, the choice, and success at the end; a goal task's
:goal held for HOLD_STEPS consecutive control steps."""

from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.expr import And, Atom, Name, Variable
from rsb_mj.lang.linter import load_task
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import Relation
from rsb_mj.scoring.outcome import HOLD_STEPS, SUCCESS_HOLD_STEPS
from rsb_mj.scoring.scorer import EpisodeScorer, Pacing, task_scorer
from rsb_mj.scoring.signals import GoalSignals

CANDS = ("block_a", "block_b", "block_c", "block_d")
GRASP = Atom("Grasped", (Variable("c", "candidate"),))
GOAL = And(
    (
        Atom("In", (Variable("answer"), Name("table_answer_zone"))),
        Atom("Released", (Variable("answer"),)),
    )
)


def _scorer(target="block_c"):
    return EpisodeScorer(GRASP, GOAL, CANDS, target, path="t.bddl", zones=("table_answer_zone",))


def _lift(make_signals, n):
    """A control step in which candidate n is pinched by the closed left gripper, lifted."""
    d = make_signals(25, 4, cmd=1.0)
    d["contact"][:, n, 0] = d["pinch"][:, n, 0] = True
    d["gripper_cmd"][:, 0], d["gripper_open"][:, 0] = 0.0, 0.5
    d["lift"][:, n] = 0.05
    d["table_contact"][:, n] = False
    return d


def _placed(make_signals, n):
    """A control step in which candidate n rests in the zone, released, grippers open."""
    d = make_signals(25, 4, cmd=1.0)
    d["in_zone"][:, n] = True
    return d


def test_a_correct_pick_and_place_is_decided_after_half_a_second_in_the_zone(make_signals):
    sc = _scorer()
    sc.update(make_signals())
    out = sc.update(_lift(make_signals, 2))
    assert (out.grasped, out.choice, out.grasp_step, out.correct_choice) == (
        True,
        "block_c",
        2,
        True,
    )
    assert not out.decided
    for _ in range(SUCCESS_HOLD_STEPS - 1):
        out = sc.update(_placed(make_signals, 2))
        assert not out.decided
    out = sc.update(_placed(make_signals, 2))
    assert (out.success, out.decided, out.success_step, out.in_zone) == (
        True,
        True,
        2 + SUCCESS_HOLD_STEPS,
        ["block_c"],
    )
    out = sc.update(make_signals())  # decided: nothing changes any more
    assert (out.success, out.steps) == (True, 2 + SUCCESS_HOLD_STEPS)


def test_a_bounce_through_the_zone_is_no_success(make_signals):
    sc = _scorer()
    sc.update(_lift(make_signals, 2))
    for _ in range(3):
        sc.update(_placed(make_signals, 2))
    out = sc.update(make_signals())  # out of the zone again
    assert not out.decided
    out = sc.finish()
    assert (out.success, out.goal_final, out.decided) == (False, False, True)


def test_an_episode_cut_while_the_answer_rests_in_the_zone_is_a_success(make_signals):
    sc = _scorer()
    sc.update(_lift(make_signals, 2))
    sc.update(_placed(make_signals, 2))
    assert sc.success_now() and not sc.outcome.decided
    out = sc.finish()
    assert (out.success, out.success_step, out.decided) == (True, None, True)


def test_a_wrong_first_grasp_fails_at_once_whatever_follows(make_signals):
    sc = _scorer()
    out = sc.update(_lift(make_signals, 0))
    assert (out.grasped, out.choice, out.correct_choice, out.success, out.decided) == (
        True,
        "block_a",
        False,
        False,
        True,
    )
    assert out.decided_step == 1
    for _ in range(SUCCESS_HOLD_STEPS + 1):  # then the correct block, placed: ignored
        sc.update(_lift(make_signals, 2))
        out = sc.update(_placed(make_signals, 2))
    assert (out.choice, out.success, out.steps, out.grasped_candidates) == (
        "block_a",
        False,
        1,
        ["block_a"],
    )
    assert sc.finish().success is False


def test_pushing_the_answer_into_the_zone_without_a_grasp_is_no_success(make_signals):
    sc = _scorer()
    push = make_signals(25, 4, cmd=0.0)
    push["contact"][:10, 2, 0] = True  # one finger pushes, gripper closed
    push["in_zone"][10:, 2] = True
    out = sc.update(push)
    for _ in range(SUCCESS_HOLD_STEPS):
        out = sc.update(_placed(make_signals, 2))
    assert (out.grasped, out.success, out.goal_final, out.decided) == (False, False, True, False)
    assert sc.finish().success is False


def test_held_in_the_zone_is_not_yet_released(make_signals):
    sc = _scorer()
    d = _lift(make_signals, 2)
    d["lift"][:, 2] = 0.0
    d["table_contact"][:, 2] = True
    d["in_zone"][:, 2] = True  # resting in the zone, fingers still on it
    for _ in range(8):  # pinched 8 control steps: a grasp, but not released
        out = sc.update(d)
    assert (out.grasped, out.success, out.goal_final) == (True, False, False)
    assert sc.finish().success is False


def test_grasp_block_cannot_use_the_answer():
    with pytest.raises(
        EvalError,
        match=r"t.bddl: the :grasp block cannot use \?answer; it ranges over the candidates, "
        r"e.g. \(Grasped \?c - candidate\), or names the object that moves",
    ):
        EpisodeScorer(
            Atom("Grasped", (Variable("answer"),)),
            GOAL,
            CANDS,
            "block_a",
            path="t.bddl",
            zones=("table_answer_zone",),
        )


def test_a_grasp_naming_what_moves_needs_a_goal_placing_it_on_the_answer():
    with pytest.raises(EvalError, match=r"t.bddl: the :grasp block names what moves, so the :goal"):
        EpisodeScorer(
            Atom("Grasped", (Name("block_a"),)),
            Atom("Released", (Name("block_a"),)),
            CANDS,
            "block_a",
            path="t.bddl",
        )


def test_the_answer_must_be_a_candidate():
    with pytest.raises(EvalError, match=r"answer 'block_x' is not a candidate"):
        _scorer("block_x")


def _both(make_signals, a, b, *, b_from=0):
    """Candidates a (left gripper) and b (right gripper, from substep ``b_from``) pinched
    by closed grippers and lifted in one control step."""
    d = _lift(make_signals, a)
    d["contact"][b_from:, b, 1] = d["pinch"][b_from:, b, 1] = True
    d["gripper_cmd"][:, 1], d["gripper_open"][:, 1] = 0.0, 0.5
    d["lift"][b_from:, b] = 0.05
    d["table_contact"][b_from:, b] = False
    return d


@pytest.mark.parametrize("b_from", [0, 20], ids=["same-substep", "later-substep"])
def test_two_candidates_grasped_in_one_control_step_are_no_choice(make_signals, b_from):
    sc = _scorer()
    sc.update(make_signals())
    out = sc.update(_both(make_signals, 2, 0, b_from=b_from))  # the answer and a wrong one
    assert (out.grasped, out.choice, out.correct_choice, out.success) == (True, None, False, False)
    assert (out.decided, out.decided_step, out.grasp_step) == (True, 2, 2)
    assert out.grasped_candidates == (
        ["block_a", "block_c"] if b_from == 0 else ["block_c", "block_a"]
    )
    assert out.void_reason.endswith("grasped in the same control step: no choice")


def test_a_second_candidate_grasped_in_the_next_control_step_is_no_choice_of_its_own(make_signals):
    sc = _scorer()
    sc.update(_lift(make_signals, 2))  # the answer first
    out = sc.update(_both(make_signals, 2, 0))  # then a wrong one with the other arm
    assert (out.choice, out.correct_choice, out.void_reason, out.decided) == (
        "block_c",
        True,
        None,
        False,
    )
    assert out.grasped_candidates == ["block_c", "block_a"]


def test_the_task_declares_its_scorer():
    tasks = Path(__file__).resolve().parents[2] / "tasks"
    question = load_task(tasks / "rsb_math_4_objects.bddl")
    sc = task_scorer(question, CANDS, "block_b")
    assert type(sc) is EpisodeScorer and type(sc.rule).__name__ == "FirstGrasp"
    assert sc.target == "block_b"
    cube = load_task(tasks / "a2a_color.bddl")
    plates = tuple(cube.candidates)
    sc = task_scorer(cube, plates, plates[1])
    assert type(sc) is EpisodeScorer and type(sc.rule).__name__ == "FirstPlacement"
    goal = parse_file(
        tasks / "vla_arena/long_horizon/level_0/pick_up_the_apple_and_place_it_in_the_box.bddl"
    )
    sc = task_scorer(goal, ("apple_1", "box_base_1"), "")
    assert type(sc) is EpisodeScorer and sc.rule is None and sc.hold_steps == 10
    assert (sc.candidates, sc.target, sc.plan) == ((), "", None)
    with pytest.raises(EvalError, match="answer 'plate_9' is not a candidate; valid: block_a"):
        task_scorer(question, CANDS, "plate_9")


RELATIONS = (
    Relation("On", "apple_1", "plate_1", "object", None),
    Relation("In", "pear_1", "basket_1_contain_region", "site", None),
)


def _goal(*truths: bool) -> GoalSignals:
    return GoalSignals(RELATIONS, truths)


def test_a_goal_task_succeeds_on_the_whole_goal_for_hold_steps_in_a_row():
    scorer = EpisodeScorer()
    assert HOLD_STEPS == SUCCESS_HOLD_STEPS == 10
    scorer.update(_goal(True, False))
    for _ in range(HOLD_STEPS - 1):
        scorer.update(_goal(True, True))
    scorer.update(_goal(False, True))  # broken at the 10th: the count starts again
    assert not scorer.outcome.decided and scorer.held == 0
    assert not scorer.success_now()
    for step in range(HOLD_STEPS):
        out = scorer.update(_goal(True, True))
        assert out.success == (step == HOLD_STEPS - 1)
    assert (out.success_step, out.decided_step, out.steps, out.goal_final) == (21, 21, 21, True)
    assert scorer.update(_goal(False, False)).success  # decided: nothing changes
    assert scorer.success_now() and scorer.finish().void_reason is None


def test_an_undecided_goal_episode_fails_naming_each_relation():
    scorer = EpisodeScorer()
    scorer.update(_goal(True, False))
    out = scorer.finish()
    assert (out.success, out.goal_final, out.choice, out.grasped) == (False, False, None, False)
    assert out.decided_step == 1
    assert out.void_reason == (
        "goal not held (On apple_1 plate_1: True; In pear_1 basket_1_contain_region: False)"
    )
    never = EpisodeScorer().finish()
    assert (never.void_reason, never.decided_step) == ("goal not held (never stepped)", None)


def test_a_goal_scorer_refuses_question_signals_and_half_a_question():
    with pytest.raises(EvalError, match=r"a goal task's scorer reads GoalSignals .* got dict"):
        EpisodeScorer().update({"contact": []})
    with pytest.raises(EvalError, match=r"^t.bddl: scoring needs both a :grasp and a :goal"):
        EpisodeScorer(GRASP, None, CANDS, "block_a", path="t.bddl")


def test_a_paced_wrong_grasp_is_scored_at_once_and_ends_when_it_would_have_as_the_answer(
    make_signals,
):
    problem = load_task(Path(__file__).resolve().parents[2] / "tasks" / "rsb_math_4.bddl")
    cands = tuple(problem.candidates)
    pacing = Pacing(problem, cands, cands[2])
    assert pacing.scorer is pacing.scorers[cands[2]] and list(pacing.scorers) == list(cands)
    out = pacing.update(_lift(make_signals, 0))  # a wrong first grasp: decided, a failure
    assert (out.choice, out.decided, out.success) == (cands[0], True, False)
    assert not pacing.ended()  # runs on as it would had cands[0] been the answer
    for step in range(SUCCESS_HOLD_STEPS):
        assert pacing.update(_placed(make_signals, 0)) is out and not out.success
        assert pacing.ended() == (step == SUCCESS_HOLD_STEPS - 1)
    assert (out.steps, pacing.scorers[cands[0]].outcome.success_step) == (1, 11)
    nothing = Pacing(problem, cands, cands[1])
    nothing.update(make_signals())
    assert nothing.ended()  # no choice: a decision without one ends the episode at once
    with pytest.raises(EvalError, match="answer 'plate_9' is not a candidate; valid: "):
        Pacing(problem, cands, "plate_9")
