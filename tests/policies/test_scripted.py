"""Target choice of the scripted baselines (the motion is the expert's, tested there)."""

from collections import Counter

import numpy as np

from rsb_mj.policies import ExpertPolicy, RandomGraspPolicy, episode_rng
from rsb_mj.policies.scripted import nearest_candidate

CANDS = ("block_a", "block_b", "block_c", "block_d")


def _info(seed=7, layout=None):
    layout = layout or {c: [-0.15 + 0.1 * i, -0.05, 0.0] for i, c in enumerate(CANDS)}
    return {
        "candidates": CANDS,
        "episode": {
            "seed": seed,
            "correct": "C",
            "mapping": {"A": "block_b", "B": "block_d", "C": "block_a", "D": "block_c"},
            "layout": layout,
        },
    }


def test_expert_picks_the_correct_option():
    info = _info()
    assert ExpertPolicy().choose(None, info, episode_rng(info, "expert")) == "block_a"


def test_random_grasp_is_seeded_by_episode_and_uniform():
    policy = RandomGraspPolicy()
    picks = [policy.choose(None, _info(s), episode_rng(_info(s), policy.name)) for s in range(400)]
    again = [policy.choose(None, _info(s), episode_rng(_info(s), policy.name)) for s in range(400)]
    assert picks == again
    counts = Counter(picks)
    assert sorted(counts) == sorted(CANDS) and min(counts.values()) > 70  # ~100 each


def test_episode_rng_differs_between_policies_with_the_same_seed():
    a = episode_rng(_info(5), "random-grasp").integers(1 << 30)
    b = episode_rng(_info(5), "other").integers(1 << 30)
    assert a != b


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
