"""Attack 4's other half: in a sealed run an episode's end and length do not tell whether
its choice was right. A wrong first grasp is scored at once, but the episode runs on
exactly as it would have had that candidate been the answer (the same scene, the same
policy, the answer moved to the chosen candidate), at the same work per step, and the
policy's ``status()`` is read at every episode's end."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.policies.spec import make_policy
from rsb_mj.scoring.outcome import FirstGrasp
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


def test_a_wrong_choice_costs_each_step_what_a_right_one_would(env, monkeypatch):
    """Its steps are no faster either (a policy timing its own calls learns nothing): the
    environment scores nothing and the scorers still working at each step are those of the
    candidates the choice leaves open, whatever the answer. Work is counted as calls of the
    choice rule's update (each scorer's per-step work; a decided scorer skips it)."""
    calls = [0]
    update = FirstGrasp.update

    def counted(self, *args):
        calls[0] += 1
        return update(self, *args)

    monkeypatch.setattr(FirstGrasp, "update", counted)

    def work(ep, sealed):
        before: list[int] = []
        policy = make_policy("nearest-to-zone")
        record = Rollout(
            env, policy, ep, env.problem, max_steps=400, sealed=sealed,
            on_step=lambda obs, action: before.append(calls[0]),
        ).run()  # fmt: skip
        return record, np.diff([*before, calls[0]]).tolist()

    episode = load_episode("RSB-Math-4", "eval", ROW)
    wrong, wrong_work = work(episode, sealed=True)
    letter = {obj: k for k, obj in episode.mapping.items()}[wrong.choice]
    right, right_work = work(dataclasses.replace(episode, correct=letter), sealed=True)
    assert (wrong.termination, right.termination, wrong.steps) == (
        "wrong_choice", "success", right.steps
    )  # fmt: skip
    # four candidates' scorers until the grasp decides three of them, then the chosen one's
    g = wrong.grasp_step
    assert wrong_work == right_work == [4] * g + [1] * (wrong.steps - g)
    # unsealed: the environment's scorer and the rollout's, both stopping at a wrong grasp
    plain, plain_work = work(dataclasses.replace(episode, correct=letter), sealed=False)
    assert plain_work == [2] * plain.steps
