"""Target choice of the scripted baselines (the motion is the expert's, tested there)."""

from collections import Counter

from rsb_mj.policies import ExpertPolicy, NearestPolicy, RandomGraspPolicy, episode_rng

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
    assert ExpertPolicy().choose(info, episode_rng(info, "expert")) == "block_a"


def test_random_grasp_is_seeded_by_episode_and_uniform():
    policy = RandomGraspPolicy()
    picks = [policy.choose(_info(s), episode_rng(_info(s), policy.name)) for s in range(400)]
    again = [policy.choose(_info(s), episode_rng(_info(s), policy.name)) for s in range(400)]
    assert picks == again
    counts = Counter(picks)
    assert sorted(counts) == sorted(CANDS) and min(counts.values()) > 70  # ~100 each


def test_episode_rng_differs_between_policies_with_the_same_seed():
    a = episode_rng(_info(5), "random-grasp").integers(1 << 30)
    b = episode_rng(_info(5), "other").integers(1 << 30)
    assert a != b


def test_nearest_picks_the_candidate_closest_to_either_arm_base():
    layout = {
        "block_a": [0.0, 0.0, 0.0],
        "block_b": [0.30, 0.10, 0.0],  # 0.196 m from the right base (0.469, 0)
        "block_c": [-0.35, -0.05, 0.0],  # 0.129 m from the left base (-0.469, 0)
        "block_d": [0.1, -0.1, 0.0],
    }
    info = _info(layout=layout)
    assert NearestPolicy().choose(info, episode_rng(info, "nearest")) == "block_c"
