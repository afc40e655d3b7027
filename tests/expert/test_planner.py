from __future__ import annotations

import itertools

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.ik import ArmIK
from rsb_mj.expert.planner import plan_path

from .conftest import DOWN, RIGHT


def _setup(model):
    ik = ArmIK(model, "right/gripper", RIGHT)
    q0 = ik.solve([0.15, -0.2, 0.05], DOWN, q0=np.zeros(6)).q
    q1 = ik.solve([-0.15, -0.2, 0.05], DOWN, q0=q0).q
    checker = CollisionChecker(model, RIGHT)
    checker.set_scene(mujoco.MjData(model), q_start=q0)
    return ik, checker, q0, q1


def test_free_space_gives_the_straight_segment(model):
    ik, checker, q0, q1 = _setup(model)
    path = plan_path(checker, q0, q1, np.random.default_rng(0), lower=ik.lower, upper=ik.upper)
    assert path.shape == (2, 6)
    np.testing.assert_array_equal(path[0], q0)
    np.testing.assert_array_equal(path[-1], q1)


def test_goes_around_an_obstacle_without_touching_it(model_with_post):
    ik, checker, q0, q1 = _setup(model_with_post)
    path = plan_path(checker, q0, q1, np.random.default_rng(0), lower=ik.lower, upper=ik.upper)
    assert len(path) >= 3
    np.testing.assert_array_equal(path[0], q0)
    np.testing.assert_array_equal(path[-1], q1)
    for a, b in itertools.pairwise(path):
        assert checker.segment_free(a, b, resolution=0.01)


def test_same_seed_same_path(model_with_post):
    ik, checker, q0, q1 = _setup(model_with_post)
    p1 = plan_path(checker, q0, q1, np.random.default_rng(5), lower=ik.lower, upper=ik.upper)
    p2 = plan_path(checker, q0, q1, np.random.default_rng(5), lower=ik.lower, upper=ik.upper)
    np.testing.assert_array_equal(p1, p2)


def test_goal_in_collision_is_refused(model):
    ik, checker, q0, _ = _setup(model)
    below = ik.solve([0.1, -0.2, -0.16], DOWN, q0=q0).q
    with pytest.raises(ExpertError, match=r"planning: goal configuration is in collision: .*table"):
        plan_path(checker, q0, below, np.random.default_rng(0), lower=ik.lower, upper=ik.upper)
