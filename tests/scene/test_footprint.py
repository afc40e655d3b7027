"""Footprints of compiled bodies and the point-over-footprint test, in the body's frame."""

import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang import load_task
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scene.footprint import Footprint, footprint, in_footprint


@pytest.fixture(scope="module")
def a2a_model():
    return compile_scene(load_task(tasks_dir() / "a2a_color.bddl")).model


def test_an_answer_plate_is_its_box(a2a_model):
    fp = footprint(a2a_model, "plate_a")
    assert fp.center.tolist() == [0.0, 0.0] and fp.half.tolist() == [0.08, 0.06]


def test_a_body_without_collision_geoms_has_no_footprint(a2a_model):
    with pytest.raises(SceneError, match=r"body 'left/eef' has no collision geom"):
        footprint(a2a_model, "left/eef")


def test_points_are_tested_in_the_body_frame():
    fp = Footprint(center=np.array([0.01, 0.0]), half=np.array([0.08, 0.06]))
    body = np.array([0.1, 0.2, 0.0])
    points = body + np.array([[0.085, 0.0, 0.03], [0.0, 0.065, 0.0], [0.0, 0.075, 0.0]])
    upright = np.array([1.0, 0.0, 0.0, 0.0])
    assert in_footprint(points, body, upright, fp).tolist() == [True, False, False]
    # Turned 90 degrees about z: the body's x axis is world y, its y axis world -x.
    turned = np.array([np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)])
    assert in_footprint(points, body, turned, fp).tolist() == [False, True, True]
