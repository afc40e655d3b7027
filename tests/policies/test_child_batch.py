"""Batched policies in a policy process: ``capabilities.batch``, per-slot episodes, one
``act_batch`` request per call, an item the policy fails fails alone, and protocol 1 peers
without batching keep working (the policies of :mod:`evaluation.batch_policies`)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.env.views import PolicyEnv
from rsb_mj.errors import PolicyError
from rsb_mj.policies import frames
from rsb_mj.policies.base import PolicyStatus
from rsb_mj.policies.child import ChildPolicy

B = "evaluation.batch_policies"


def _env() -> PolicyEnv:
    return PolicyEnv(None, None, ("block_a", "block_b", "block_c", "block_d"), 20.0, "")


def _info(text: str) -> dict:
    return {"instruction": text, "candidates": ("block_a", "block_b", "block_c", "block_d")}


def _obs() -> dict:
    return {"state": np.zeros(14), "images": {}}


def test_a_batched_policy_announces_its_batch_and_keeps_episodes_per_slot():
    policy = ChildPolicy(f"{B}:batch_picker")
    try:
        assert policy.batched and policy.batch_size == 8  # the class's batch_size
        policy.reset_slot(2, _env(), _obs(), _info("what is 1 plus 1?"))  # digits 2: candidate 2
        policy.reset_slot(5, _env(), _obs(), _info("what is 2 plus 2?"))  # 4 -> candidate 0
        first, second = policy.act_batch([_obs(), _obs()], [5, 2])
        assert first.shape == second.shape == (2, 14)
        assert (first[0, 0], second[0, 0]) == (0.0, 2.0)  # each slot's own candidate
        assert policy.slot_text(2) == "I pick candidate 2 (option C)"
        assert policy.slot_text(5) == "I pick candidate 0 (option A)"
        assert not policy.slot_done(2)
        policy.act_batch([_obs(), _obs()], [2, 5])
        (last,) = policy.act_batch([_obs()], [2])
        assert last.shape == (1, 14) and policy.slot_done(2) and not policy.slot_done(5)
        assert policy.slot_status(2) == PolicyStatus(phase="t5")
        assert policy.slot_status(5) == PolicyStatus(phase="t4")
    finally:
        policy.close()


def test_an_item_the_policy_fails_fails_alone(monkeypatch):
    monkeypatch.setenv("BATCH_FAIL", "episode one")
    policy = ChildPolicy(f"{B}:fails_episode_one")
    try:
        policy.reset_slot(0, _env(), _obs(), _info("episode zero"))
        policy.reset_slot(1, _env(), _obs(), _info("episode one"))
        ok, failed = policy.act_batch([_obs(), _obs()], [0, 1])
        assert ok.shape == (2, 14)
        assert isinstance(failed, PolicyError) and str(failed) == (
            f"policy {B}:fails_episode_one: act_batch() raised RuntimeError: no action for "
            "episode 1"
        )
    finally:
        policy.close()


def test_an_act_batch_that_raises_fails_the_call(monkeypatch):
    monkeypatch.setenv("BATCH_FAIL", "episode one")
    policy = ChildPolicy(f"{B}:raises_with_episode_one")
    try:
        policy.reset_slot(0, _env(), _obs(), _info("episode zero"))
        policy.reset_slot(1, _env(), _obs(), _info("episode one"))
        with pytest.raises(PolicyError, match=r"act_batch\(\) raised ValueError: the GPU fell"):
            policy.act_batch([_obs(), _obs()], [0, 1])
        (alone,) = policy.act_batch([_obs()], [0])  # the process is fine: the next call works
        assert alone.shape == (2, 14)
    finally:
        policy.close()


def test_a_policy_without_act_batch_announces_nothing_and_refuses_the_request():
    policy = ChildPolicy(f"{B}:picker")
    try:
        assert not policy.batched
        policy.reset(_env(), _obs(), _info("what is 2 plus 2?"))
        assert policy.act(_obs()).shape == (2, 14)
        policy._busy = False
        frames.send(policy._sock, {"type": "act_batch", "items": [{"slot": 0, "obs": _obs()}]})
        reply = frames.recv(policy._sock)
        assert (reply["type"], reply["kind"], reply["error"]) == (
            "error", "protocol", "unknown request type 'act_batch'",
        )  # fmt: skip
    finally:
        policy.close()
