"""Goal scenes: the frame map, the layout drawn per seed, settling checks."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.lang.ast import Rect
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import task_of
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.workspace import TABLE_TOP_Z

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    SUITES
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
BOWL = SUITES / "libero/libero_goal/put_the_bowl_on_top_of_the_cabinet.bddl"


@pytest.fixture(scope="module")
def apple():
    return compile_scene(task_of(parse_file(APPLE), expect="goal")).layout


def test_same_seed_same_state_and_objects_in_their_regions(apple):
    d1, d2 = mujoco.MjData(apple.model), mujoco.MjData(apple.model)
    poses = apple.reset(d1, 3)
    apple.reset(d2, 3)
    assert d1.qpos.tobytes() == d2.qpos.tobytes()
    x0, y0, x1, y1 = apple.frame.rect(Rect(-0.15, -0.21, -0.12, -0.19))  # target_object_region
    x, y, z, _ = poses["apple_1"]
    assert x0 <= x <= x1 and y0 <= y <= y1
    assert z == pytest.approx(TABLE_TOP_Z + apple.rest["apple_1"])
    other = mujoco.MjData(apple.model)
    apple.reset(other, 4)
    assert other.qpos.tobytes() != d1.qpos.tobytes()


def test_table_regions_are_sites_and_the_settled_scene_passes_its_checks(apple):
    data = mujoco.MjData(apple.model)
    apple.reset(data, 0)
    site = apple.model.site("main_table_plate_region")
    assert site.size[2] == pytest.approx(0.001)
    assert apple.check(data) is None
    assert apple.check(data, lambda d: True) == "the goal holds at reset"
    data.qpos[apple.model.joint("apple_1/free").qposadr[0]] = 2.0  # far off the table
    mujoco.mj_forward(apple.model, data)
    assert apple.check(data) == "apple_1 is off the table"


def test_fixtures_are_static_props_with_region_sites():
    scene = compile_scene(task_of(parse_file(BOWL), expect="goal")).layout
    cabinet = scene.model.body("wooden_cabinet_1")
    assert cabinet.jntnum[0] == 0  # no joint: a prop
    top = scene.model.site("wooden_cabinet_1_top_side")
    assert top.bodyid[0] == cabinet.id
    assert scene.sources["akita_black_bowl_1"] == "standins"


SOCK = """(define (problem My_Task) (:domain robosuite) (:language Put the sock on the plate)
  (:regions (sock_region (:target main_table) (:ranges ((-0.05 -0.2 -0.03 -0.18))))
            (plate_region (:target main_table) (:ranges ((-0.05 0.1 -0.03 0.12)))))
  (:fixtures main_table - table) (:objects sock_1 - sock plate_1 - plate)
  (:init (On sock_1 main_table_sock_region) (On plate_1 main_table_plate_region))
  (:goal (And (On sock_1 plate_1))))"""


def test_a_category_without_a_model_is_a_primitive_stand_in():
    from rsb_mj.lang.parser import parse_text

    scene = compile_scene(task_of(parse_text(SOCK, "sock.bddl"), expect="goal")).layout
    assert scene.sources == {"sock_1": "rsb-primitive", "plate_1": "standins"}
    assert scene.rest["sock_1"] == 0.0 and scene.tops["sock_1"] == pytest.approx(0.06)


CAKE = (
    Path(__file__).resolve().parents[2]
    / "tasks/vla_arena/generalization_task_workflows/level_0"
    / "pick_up_the_cake_and_place_it_on_the_plate.bddl"
)


def test_an_object_drawn_into_a_fixture_is_drawn_again_then_pushed_clear():
    """The cake's region lies 0.12 m from the shelf's centre at the task's scale (0.75): its
    draws all put it 8.5 mm into the shelf, and every reset failed. Now the layout keeps each
    footprint 5 mm clear of the fixtures and of the objects drawn before it."""
    scene = compile_scene(task_of(parse_file(CAKE), expect="goal")).layout
    data = mujoco.MjData(scene.model)
    poses = scene.reset(data, 0)
    assert scene.check(data) is None
    cake, shelf = scene.model.body("cake_1").id, scene.model.body("wooden_shelf_1").id
    for i in range(data.ncon):
        c = data.contact[i]
        roots = {scene.model.body_rootid[scene.model.geom_bodyid[g]] for g in (c.geom1, c.geom2)}
        assert roots != {cake, shelf}
    x0, y0, x1, y1 = scene.frame.rect(Rect(-0.12, -0.26, -0.1, -0.24), "main_table_cake_region")
    x, y, _, _ = poses["cake_1"]
    assert not (x0 <= x <= x1 and y0 <= y <= y1)  # moved out of its region, clear of the shelf


WATER = (
    Path(__file__).resolve().parents[2]
    / "tasks/vla_arena/safety_object_state_preservation/level_1"
    / "pick_up_the_blue_mug_on_the_table_center_and_place_it_on_the_wooden_shelf.bddl"
)


def test_water_balls_stacked_on_a_mug_settle_inside_it():
    """Four water balls start stacked on the blue mug (``(On water_ball_2 water_ball_1)``...).
    VLA-Arena's are 16 mm spheres; the 5 cm stand-in balls fell out and rolled on every seed.
    At 3.2 cm they settle in the hollow mug, at rest."""
    scene = compile_scene(task_of(parse_file(WATER), expect="goal")).layout
    data = mujoco.MjData(scene.model)
    scene.reset(data, 0)
    mug = data.xpos[scene.model.body("blue_mug_1").id]
    for i in range(1, 5):
        ball = data.xpos[scene.model.body(f"water_ball_{i}").id]
        assert np.hypot(*(ball[:2] - mug[:2])) < 0.06, i  # within the mug's rim
