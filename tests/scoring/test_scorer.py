"""EpisodeScorer: the policy's choice, latched success, and the grasp requirement."""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import And, Atom, Name, Variable
from rsb_mj.scoring.scorer import EpisodeScorer

CANDS = ("block_a", "block_b", "block_c", "block_d")
GRASP = Atom("Grasped", (Variable("c", "candidate"),))
GOAL = And(
    (
        Atom("In", (Variable("answer"), Name("table_answer_zone"))),
        Atom("Released", (Variable("answer"),)),
    )
)


def _scorer(target="block_c"):
    return EpisodeScorer(GRASP, GOAL, CANDS, target, path="t.bddl")


def _lift(make_signals, n, *, cmd=0.0):
    """A control step in which candidate n is held closed and lifted 5 cm."""
    d = make_signals(25, 4, cmd=cmd)
    d["contact"][:, n, 1] = True
    d["lift"][:, n] = 0.05
    return d


def _placed(make_signals, n):
    """A control step in which candidate n rests in the zone, released, grippers open."""
    d = make_signals(25, 4, cmd=1.0)
    d["in_zone"][:, n] = True
    return d


def test_correct_pick_and_place_is_latched_at_its_step(make_signals):
    sc = _scorer()
    sc.update(make_signals())
    out = sc.update(_lift(make_signals, 2))
    assert (out.grasped, out.choice, out.grasp_step, out.success) == (True, "block_c", 2, False)
    out = sc.update(_placed(make_signals, 2))
    assert (out.success, out.success_step, out.goal_final, out.in_zone) == (
        True,
        3,
        True,
        ["block_c"],
    )
    knocked_out = make_signals()
    out = sc.update(knocked_out)
    assert (out.success, out.success_step, out.goal_final, out.steps) == (True, 3, False, 4)


def test_wrong_choice_is_recorded_and_is_no_success(make_signals):
    sc = _scorer()
    sc.update(_lift(make_signals, 0))
    out = sc.update(_placed(make_signals, 0))
    assert (out.grasped, out.choice, out.success, out.in_zone) == (
        True,
        "block_a",
        False,
        ["block_a"],
    )
    sc.update(_lift(make_signals, 2))
    out = sc.update(_placed(make_signals, 2))
    assert out.choice == "block_a"  # the first grasp stays the choice
    assert out.grasped_candidates == ["block_a", "block_c"]
    assert (out.success, out.success_step) == (True, 4)


def test_pushing_the_answer_into_the_zone_without_a_grasp_is_no_success(make_signals):
    sc = _scorer()
    push = make_signals(25, 4, cmd=1.0)
    push["contact"][:10, 2, 0] = True
    push["in_zone"][10:, 2] = True
    out = sc.update(push)
    assert (out.grasped, out.success, out.goal_final) == (False, False, True)


def test_held_in_the_zone_is_not_yet_released(make_signals):
    sc = _scorer()
    d = _lift(make_signals, 2)
    d["lift"][:, 2] = 0.0
    d["in_zone"][:, 2] = True  # resting in the zone, fingers still on it
    out = sc.update(d)
    assert (out.grasped, out.success, out.goal_final) == (True, False, False)


def test_grasp_block_must_range_over_candidates():
    with pytest.raises(EvalError, match=r"t.bddl: the :grasp block must range over the candidates"):
        EpisodeScorer(Atom("Grasped", (Variable("answer"),)), GOAL, CANDS, "block_a", path="t.bddl")


def test_the_answer_must_be_a_candidate():
    with pytest.raises(EvalError, match=r"answer 'block_x' is not a candidate"):
        _scorer("block_x")
