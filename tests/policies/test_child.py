"""A user's policy in a policy process: what it is handed, how it fails, how it ends.

The policies are those of :mod:`policies.escapes`; ``test_escapes_cli.py`` runs them through
``rsb eval`` itself.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from gymnasium import spaces

from rsb_mj.env.views import PolicyEnv
from rsb_mj.errors import PolicyError
from rsb_mj.policies.base import PolicyStatus
from rsb_mj.policies.child import ChildPolicy, encode_space

E = "policies.escapes"


def _env() -> PolicyEnv:
    box = spaces.Box(-1.0, 1.0, shape=(14,), dtype=np.float64)
    images = spaces.Dict({"head": spaces.Box(0, 255, (24, 32, 3), dtype=np.uint8)})
    return PolicyEnv(
        action_space=box,
        observation_space=spaces.Dict({"images": images, "state": box}),
        candidates=("block_a", "block_b"),
        control_hz=20.0,
        instruction="what is 2 plus 2? place the correct block in the gray zone",
    )


def _obs() -> dict:
    return {"state": np.linspace(0, 1, 14), "images": {"head": np.zeros((24, 32, 3), np.uint8)}}


INFO = {
    "instruction": "what is 2 plus 2? ...",
    "candidates": ("block_a", "block_b"),
    "step": 0,
    "signals": {"in_zone": np.zeros((1, 2), dtype=bool), "lift": np.zeros((1, 2))},
    "sim": {"quality": "fast"},
    "is_success": False,  # not part of the interface: not sent
    "episode": "never",  # the runner never hands it to any policy; not sent either
}


@pytest.fixture
def policy(request):
    p = ChildPolicy(f"{E}:{request.param}")
    yield p
    p.close()


@pytest.mark.parametrize("policy", ["reporter"], indirect=True)
def test_the_policy_process_gets_the_interfaces_values_only(policy):
    assert policy.pid != os.getpid() and policy.cameras == ()
    policy.reset(_env(), _obs(), INFO)
    np.testing.assert_array_equal(policy.act(_obs()), np.linspace(0, 1, 14))
    seen = json.loads(policy.text)
    assert seen == {
        "env": "PolicyEnv",
        "candidates": ["block_a", "block_b"],
        "control_hz": 20.0,
        "instruction": "what is 2 plus 2? place the correct block in the gray zone",
        "action_space": "Box(-1.0, 1.0, (14,), float64)",
        "observation_space": "Dict('images': Dict('head': Box(0, 255, (24, 32, 3), uint8)), "
        "'state': Box(-1.0, 1.0, (14,), float64))",
        "info": ["candidates", "instruction", "signals", "sim", "step"],
        "signals": {"in_zone": ["bool", [1, 2]], "lift": ["float64", [1, 2]]},
        "state": ["float64", [14]],
        "images": {"head": ["uint8", [24, 32, 3]]},
        "writable": True,
    }
    assert policy.done is False and policy.status() == PolicyStatus()


def test_a_failing_factory_and_a_simulator_policy_are_refused_with_the_cause():
    with pytest.raises(PolicyError) as err:
        ChildPolicy("evaluation.user_policies:factory_raises")
    assert str(err.value) == (
        "policy evaluation.user_policies:factory_raises: building it failed: "
        "RuntimeError: weights not found"
    )
    with pytest.raises(PolicyError) as err:
        ChildPolicy(f"{E}:simulated")
    assert str(err.value) == (
        f"policy {E}:simulated: declares simulator = True, but neither the simulator nor the "
        f"answer leaves rsb's process; run it there with --policy inprocess:{E}:simulated (its "
        "records are then marked privileged and never ranked)"
    )


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ("interrupts", "act() raised KeyboardInterrupt"),
        ("exits", "act(): its process exited with status 3 (the episode is its failure)"),
        ("killed", "act(): its process was killed by SIGKILL (the episode is its failure)"),
        (
            "forks",
            "act(): the policy forked a process that returned into rsb's policy loop; the copy "
            "was stopped, and the episode is its failure",
        ),
    ],
    indirect=["policy"],
)
def test_escapes_are_policy_errors(policy, message):
    policy.reset(_env(), _obs(), INFO)
    with pytest.raises(PolicyError) as err:
        policy.act(_obs())
    assert str(err.value) == f"policy {policy.name}: {message}"


@pytest.mark.parametrize("policy", ["exits"], indirect=True)
def test_after_its_process_ended_every_call_says_so(policy):
    policy.reset(_env(), _obs(), INFO)
    with pytest.raises(PolicyError):
        policy.act(_obs())
    with pytest.raises(PolicyError) as err:
        policy.status()
    assert str(err.value) == (
        f"policy {E}:exits: status(): its process exited with status 3 earlier"
    )


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for a parent that does not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def descendants(pid: int) -> list[int]:
    """Host pids of the running processes below ``pid`` (its children, theirs, ...)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rpartition(")")[2].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        todo += kids
    return [p for p in found if _alive(p)]


@pytest.mark.parametrize("policy", ["spawns"], indirect=True)
def test_close_ends_the_process_group_forked_copies_included(policy):
    policy.reset(_env(), _obs(), INFO)
    policy.act(_obs())
    process = policy.pid
    below = descendants(process)  # the sandbox's processes, the forked copy among them
    assert _alive(process) and len(below) >= (3 if policy.sandboxed else 1)
    policy.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in below):
        time.sleep(0.01)
    assert not _alive(process) and not [p for p in below if _alive(p)]


def test_spaces_other_than_box_dict_discrete_are_refused():
    assert encode_space(spaces.Discrete(3, start=1)) == {"space": "Discrete", "n": 3, "start": 1}
    with pytest.raises(PolicyError, match=r"cannot send a MultiBinary space to a policy process"):
        encode_space(spaces.MultiBinary(3))


def test_a_lerobot_checkpoint_named_through_a_link_binds_its_real_folder_too(tmp_path):
    """lerobot-train's ``checkpoints/last`` is a link to ``checkpoints/000002``, which LeRobot
    reads: a sealed sandbox binds both spellings (it bound only the link, and the model file
    was not there)."""
    from rsb_mj.policies.child import spec_code

    real = tmp_path / "checkpoints" / "000002" / "pretrained_model"
    real.mkdir(parents=True)
    (tmp_path / "checkpoints" / "last").symlink_to("000002")
    given = tmp_path / "checkpoints" / "last" / "pretrained_model"
    assert spec_code(f"lerobot:{given},convention=aloha") == [str(given), str(real)]
    assert spec_code(f"lerobot:{real}") == [str(real)]
