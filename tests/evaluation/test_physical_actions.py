"""Non-physical actions are refused as policy errors; merely out-of-range ones are clipped.

The bound comes from the real model's actuator ranges (``RsbEnv.action_space``), each
widened by one range on each side (``rollout.PHYSICAL_MARGIN``).
"""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.errors import PolicyError
from rsb_mj.evaluation.rollout import Rollout, check_physical, physical_bounds
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode


@pytest.fixture(scope="module")
def env():
    from rsb_mj.env import RsbEnv

    s = get_suite("RSB-Math-4")
    env = RsbEnv(s.path, suite=s.name, cameras=())
    yield env
    env.close()


def test_the_bound_is_each_joint_range_widened_by_one_range(env):
    low, high = physical_bounds(env.action_space)
    arm_low = [-9.42474, -4.95674, -5.13126, -9.42474, -5.96902, -9.42474]
    arm_high = [9.42474, 4.36333, 4.97418, 9.42474, 6.33554, 9.42474]
    np.testing.assert_allclose(low, [*arm_low, -1.0] * 2, atol=1e-5)
    np.testing.assert_allclose(high, [*arm_high, 2.0] * 2, atol=1e-5)
    assert physical_bounds(None) is None  # an env without a Box action space: no bound


def test_an_action_far_outside_is_refused_naming_where(env):
    bounds = physical_bounds(env.action_space)
    chunk = np.zeros((3, 14))
    chunk[1, 6] = 2.5  # a gripper at 2.5 (0..1 widened to -1..2)
    chunk[2, 0] = -1e30
    policy = make_policy("noop")
    with pytest.raises(PolicyError) as err:
        check_physical(chunk, bounds, policy)
    assert str(err.value) == (
        "policy noop: act() returned non-physical values at (row, index) [(1, 6), (2, 0)]: "
        "2.5 at index 6, which allows -1..2 (its range widened by 1 range on each side); "
        "expected joint positions [rad] and grippers 0 (closed) .. 1 (open)"
    )
    chunk[1, 6], chunk[2, 0] = 2.0, -9.4  # on the bound: allowed
    check_physical(chunk, bounds, policy)


@pytest.mark.parametrize(
    ("spec", "termination", "error"),
    [
        ("inprocess:policies.escapes:slightly", "step_limit", None),
        (
            "inprocess:policies.escapes:huge",
            "error",
            "PolicyError: policy inprocess:policies.escapes:huge: act() returned non-physical "
            "values at (row, index) [(0, 3), (1, 3)]: 1e+30 at index 3, which allows "
            "-9.42474..9.42474 (its range widened by 1 range on each side); expected joint "
            "positions [rad] and grippers 0 (closed) .. 1 (open)",
        ),
    ],
)
def test_in_an_episode_slightly_out_is_clipped_and_1e30_is_a_policy_error(
    env, spec, termination, error
):
    episode = load_episode("RSB-Math-4", "eval", 3)
    record = Rollout(env, make_policy(spec), episode, env.problem, max_steps=3).run()
    assert (record.termination, record.error) == (termination, error)
    assert record.error_kind == (None if error is None else "policy")
    assert record.privileged  # user code in rsb's process is marked
