"""Tests of rsb_mj/scene/fixture_placement.py's arms' rule (applied by the compiler): a
fixture whose part open at ``:init`` starts inside an arm at home is moved toward the centre."""

from __future__ import annotations

import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import task_of
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import _arm_touch, compile_scene
from rsb_mj.scene.fixture_placement import arms_label

MANGO = (
    "vla_arena/robustness_static_distractors/level_{}/"
    "pick_the_mango_on_the_table_and_place_it_on_the_bowl.bddl"
)


def test_arms_label_names_the_move_and_the_link():
    assert arms_label("white_cabinet_1", -0.415, -0.365, "left/upper_arm_link") == (
        "white_cabinet_1: moved along x from -0.415 to -0.365 m (toward the table's centre; "
        "its part open at :init touched left/upper_arm_link at the arms' home pose)"
    )


@pytest.mark.parametrize("level", [1, 2])
def test_an_open_drawer_in_the_left_arm_moves_the_cabinet_toward_the_centre(level):
    scene = compile_scene(task_of(parse_file(tasks_dir() / MANGO.format(level)), expect="goal"))
    model = scene.model
    assert scene.layout.layout_changes == (
        arms_label("white_cabinet_1", -0.415, -0.365, "left/upper_arm_link"),
    )
    body = model.body("white_cabinet_1")
    assert float(model.body_pos[body.id][0]) == pytest.approx(-0.365, abs=1e-12)
    root = body.id
    fixtures = frozenset({root})
    drawer = {"white_cabinet_1/top_level": -0.16}  # the most open of LIBERO's open range
    assert _arm_touch(model, root, drawer, fixtures) is None
    # one step back toward the file's place (-0.375 m) the drawer is still in the arm
    model.body_pos[root][0] = -0.375
    assert _arm_touch(model, root, drawer, fixtures) == "left/upper_arm_link"
    model.body_pos[root][0] = -0.415
    assert _arm_touch(model, root, drawer, fixtures) == "left/upper_arm_link"
    # shut, the drawer stays inside the cabinet: clear of the arm at the file's place too
    assert _arm_touch(model, root, {"white_cabinet_1/top_level": 0.0}, fixtures) is None


def test_the_moved_cabinet_resets_with_its_drawer_open_where_it_was_drawn():
    env = GoalEnv(tasks_dir() / MANGO.format(1), cameras=())
    try:
        env.reset(seed=0)  # before: no valid layout (the drawer started in the left arm)
        q = float(env.data.qpos[env.model.joint("white_cabinet_1/top_level").qposadr[0]])
        assert -0.16 <= q <= -0.14
        assert env.goal_info["layout_changes"].startswith("white_cabinet_1: moved along x")
    finally:
        env.close()


def test_a_drawer_open_clear_of_the_arms_keeps_the_file_s_place():
    name = (
        "pick_the_tomato_next_to_the_cereal_and_place_it_on_the_porcelain_bowl_on_the_cutting_board"
    )
    path = tasks_dir() / "vla_arena/generalization_object_preposition_combinations/level_1"
    scene = compile_scene(task_of(parse_file(path / f"{name}.bddl"), expect="goal"))
    assert scene.layout.init_joints and scene.layout.layout_changes == ()
