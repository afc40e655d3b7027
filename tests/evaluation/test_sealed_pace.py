"""Attack 4's other half: in a sealed run an episode's end and length do not tell whether
its choice was right. A wrong first grasp is scored at once, but the episode runs on
exactly as it would have had that candidate been the answer (the same scene, the same
policy, the answer moved to the chosen candidate), and the policy's ``status()`` is read
at every episode's end."""

from __future__ import annotations

import dataclasses

import pytest

from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode

#: RSB-Math-4 eval row 1: nearest-to-zone (language-blind) carries a wrong candidate.
ROW = 1


@pytest.fixture(scope="module")
def env():
    from rsb_mj.env import RsbEnv

    made = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4", cameras=())
    yield made
    made.close()


def test_a_wrong_choice_runs_on_as_a_right_one_would(env):
    episode = load_episode("RSB-Math-4", "eval", ROW)

    def run(ep, sealed):
        policy = make_policy("nearest-to-zone")
        return Rollout(env, policy, ep, env.problem, max_steps=400, sealed=sealed).run()

    plain = run(episode, sealed=False)
    assert plain.termination == "wrong_choice" and plain.steps == plain.grasp_step
    letter = {obj: k for k, obj in episode.mapping.items()}[plain.choice]
    right = run(dataclasses.replace(episode, correct=letter), sealed=False)
    assert (right.termination, right.choice) == ("success", plain.choice)
    assert right.steps > plain.steps + 20  # unsealed, the length tells right from wrong
    sealed = run(episode, sealed=True)
    # scored as before (the same grasp, a wrong choice), but as long as the right one
    assert (sealed.termination, sealed.success, sealed.choice, sealed.grasp_step) == (
        "wrong_choice",
        False,
        plain.choice,
        plain.grasp_step,
    )
    assert sealed.steps == right.steps
    assert sealed.failure_reason == plain.failure_reason
    resealed = run(dataclasses.replace(episode, correct=letter), sealed=True)
    assert (resealed.termination, resealed.steps) == ("success", right.steps)
