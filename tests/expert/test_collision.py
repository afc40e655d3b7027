from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.ik import ArmIK

from .conftest import DOWN, RIGHT


def _below_table(model) -> np.ndarray:
    ik = ArmIK(model, "right/gripper", RIGHT)
    return ik.solve([0.1, -0.2, -0.16], DOWN, q0=np.zeros(6)).q


def test_reports_the_table_when_the_arm_goes_through_it(model):
    checker = CollisionChecker(model, RIGHT)
    checker.set_scene(mujoco.MjData(model), q_start=np.zeros(6))
    q = _below_table(model)
    assert checker.in_collision(q)
    assert any("table" in pair for pair in checker.colliding_pairs(q))
    assert not checker.in_collision(np.zeros(6))


def test_allowed_geoms_are_ignored(model):
    checker = CollisionChecker(model, RIGHT, allowed_geoms=[model.geom("table").id])
    checker.set_scene(mujoco.MjData(model), q_start=np.zeros(6))
    assert not checker.in_collision(_below_table(model))


def test_contacts_of_the_start_state_are_ignored(model):
    q = _below_table(model)
    checker = CollisionChecker(model, RIGHT)
    checker.set_scene(mujoco.MjData(model), q_start=q)
    assert not checker.in_collision(q)


def test_segment_check_finds_a_collision_in_the_middle(model_with_post):
    ik = ArmIK(model_with_post, "right/gripper", RIGHT)
    q0 = ik.solve([0.15, -0.2, 0.05], DOWN, q0=np.zeros(6)).q
    q1 = ik.solve([-0.15, -0.2, 0.05], DOWN, q0=q0).q
    checker = CollisionChecker(model_with_post, RIGHT)
    checker.set_scene(mujoco.MjData(model_with_post), q_start=q0)
    assert not checker.in_collision(q0) and not checker.in_collision(q1)
    assert not checker.segment_free(q0, q1)


def test_depth_measures_the_penetration(model):
    checker = CollisionChecker(model, RIGHT)
    checker.set_scene(mujoco.MjData(model), q_start=np.zeros(6))
    assert checker.depth(np.zeros(6)) == 0.0
    q = _below_table(model)
    assert checker.depth(q) > 0.005
    assert checker.segment_depth(np.zeros(6), q) >= checker.depth(q)
