from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.errors import ExpertError
from rsb_mj.expert.ik import ArmIK

from .conftest import DOWN, RIGHT


def test_converges_to_1mm_1deg_on_reachable_poses(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    rng = np.random.default_rng(3)
    lo, hi = ik.lower.copy(), ik.upper.copy()
    lo[[0, 3, 5]], hi[[0, 3, 5]] = -1.5, 1.5
    for _ in range(20):
        q_true = rng.uniform(lo, hi)
        pos, rot = ik.forward(q_true)
        result = ik.solve(pos, rot, q0=np.zeros(6), rng=rng)
        got_pos, got_rot = ik.forward(result.q)
        assert np.linalg.norm(got_pos - pos) <= 1e-3
        angle = np.arccos(np.clip((np.trace(got_rot.T @ rot) - 1) / 2, -1, 1))
        assert angle <= np.deg2rad(1.0)
        assert np.all(result.q >= ik.lower) and np.all(result.q <= ik.upper)


def test_top_down_pose_over_the_table(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    result = ik.solve([0.1, -0.2, 0.05], DOWN, q0=np.zeros(6))
    pos, rot = ik.forward(result.q)
    np.testing.assert_allclose(pos, [0.1, -0.2, 0.05], atol=1e-3)
    np.testing.assert_allclose(rot[:, 0], [0, 0, -1], atol=0.02)
    assert result.iterations < 60


def test_position_only_leaves_orientation_free(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    result = ik.solve([0.0, -0.1, 0.2], None, q0=np.zeros(6))
    assert result.rot_error == 0.0
    assert result.pos_error <= 1e-3


def test_unreachable_target_fails_clearly(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    with pytest.raises(
        ExpertError,
        match=r"IK for site 'right/gripper': target \[0.0, 1.5, 0.3\] "
        r"unreachable after 3 attempts \(best error \d+\.\d mm",
    ):
        ik.solve([0.0, 1.5, 0.3], DOWN, restarts=2)


def test_limits_are_respected_when_the_target_needs_more(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    q = ik.clamp(np.array([0.0, -5.0, 5.0, 0.0, 9.0, 0.0]))
    assert q[1] == pytest.approx(ik.lower[1])
    assert q[2] == pytest.approx(ik.upper[2])
    assert q[4] == pytest.approx(ik.upper[4])


def test_unknown_site_and_joint_list_the_valid_names(model):
    with pytest.raises(
        ExpertError, match=r"site 'nope' not found; available sites: .*right/gripper"
    ):
        ArmIK(model, "nope", RIGHT)
    with pytest.raises(
        ExpertError, match=r"joint 'right/knee' not found; available joints: right/waist"
    ):
        ArmIK(model, "right/gripper", ("right/knee",))
