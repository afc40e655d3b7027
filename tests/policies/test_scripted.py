"""Target choice of the scripted baselines (the motion is the expert's, tested there)."""

from collections import Counter

import numpy as np
import pytest

from rsb_mj.env.views import GoalView, SimView, policy_seed
from rsb_mj.errors import EvalError, PolicyError
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.expert.placements import placements
from rsb_mj.lang import load_task
from rsb_mj.lang.task import task_of
from rsb_mj.policies import ExpertPolicy, PolicyStatus, RandomGraspPolicy, policy_rng
from rsb_mj.policies.scripted import NearestPolicy, nearest_candidate
from rsb_mj.resources import tasks_dir

CANDS = ("block_a", "block_b", "block_c", "block_d")
INFO = {"candidates": CANDS}


def _view(seed=7, policy="random-grasp", answer=None):
    """A SimView without a simulator: only what choose() reads."""
    return SimView(
        model=None, data=None, scene=None, candidates=CANDS, control_hz=20.0,
        instruction="", seed=policy_seed(seed, policy), letters={}, _answer=answer,
    )  # fmt: skip


def test_only_the_expert_is_privileged_and_it_reads_the_answer_channel():
    assert ExpertPolicy.privileged and not RandomGraspPolicy.privileged
    assert ExpertPolicy.simulator and RandomGraspPolicy.simulator
    view = _view(answer="block_a")
    assert ExpertPolicy().choose(view, INFO, policy_rng(view)) == "block_a"
    with pytest.raises(EvalError, match=r"the answer is only handed to privileged policies"):
        _ = _view().answer


def test_random_grasp_is_seeded_by_episode_and_uniform():
    policy = RandomGraspPolicy()
    picks = [policy.choose(_view(s), INFO, policy_rng(_view(s))) for s in range(400)]
    again = [policy.choose(_view(s), INFO, policy_rng(_view(s))) for s in range(400)]
    assert picks == again
    counts = Counter(picks)
    assert sorted(counts) == sorted(CANDS) and min(counts.values()) > 70  # ~100 each


def test_policy_seed_differs_between_policies_and_hides_the_episode_seed():
    assert policy_seed(5, "random-grasp") != policy_seed(5, "other")
    assert policy_seed(5, "random-grasp") == policy_seed(5, "random-grasp")
    assert policy_seed(5, "random-grasp") != 5


def test_nearest_picks_the_candidate_closest_to_either_gripper():
    positions = {
        "block_a": np.array([0.0, 0.0, 0.8]),
        "block_b": np.array([0.30, 0.10, 0.8]),  # 0.196 m from the right gripper
        "block_c": np.array([-0.35, -0.05, 0.8]),  # 0.129 m from the left gripper
        "block_d": np.array([0.1, -0.1, 0.8]),
    }
    anchors = [np.array([-0.469, 0.0, 1.0]), np.array([0.469, 0.0, 1.0])]
    assert nearest_candidate(positions, anchors) == "block_c"
    assert nearest_candidate(positions, anchors[1:]) == "block_b"


def test_a_scripted_policy_reports_its_experts_phase_failure_and_warnings():
    policy = ExpertPolicy()
    assert policy.status() == PolicyStatus()  # before any episode

    class Expert:  # what status() reads of PickPlaceExpert
        phase, failure, warnings = "carry", "carry: no collision-free path", ["tilted grasp"]

    policy._expert = Expert()
    assert policy.status() == PolicyStatus(
        phase="carry", failure="carry: no collision-free path", warnings=("tilted grasp",)
    )


def test_on_a_task_without_candidates_a_baseline_refuses_and_the_expert_binds_nothing():
    """No branch on the view's kind: the task has no candidates to bind ?answer to, so the
    baselines (which only choose) refuse and the expert carries out the goal's placements."""
    path = tasks_dir() / "libero" / "libero_goal" / "put_the_bowl_on_the_plate.bddl"
    task = task_of(load_task(path), expect="goal")
    view = GoalView(
        model=None, data=None, scene=None, task=task, candidates=tuple(task.objects),
        control_hz=20.0, instruction="", seed=3,
    )  # fmt: skip
    for baseline in (RandomGraspPolicy(), NearestPolicy()):
        with pytest.raises(
            PolicyError,
            match=rf"^policy {baseline.name}: chooses among a question task's candidates; a "
            r"goal task asks none \(run expert, noop or your own policy on goal tasks\)$",
        ):
            baseline.reset(view, {}, {})
    policy = ExpertPolicy()
    policy.reset(view, {}, {})
    assert policy.target is None and type(policy._expert) is PickPlaceExpert
    assert policy._expert.placements == placements(task) and policy._expert.safe
