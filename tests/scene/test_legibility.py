"""Tests of rsb_mj.scene.legibility: the head camera's framing and letter heights in pixels."""

from __future__ import annotations

import itertools

import mujoco
import numpy as np
import pytest
from PIL import Image

from rsb_mj.errors import SceneError
from rsb_mj.lang import load_task
from rsb_mj.lang.layout import footprint_radius
from rsb_mj.scene import aloha
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scene.frames import table_to_world
from rsb_mj.scene.legibility import (
    MIN_HEIGHT_PX,
    MIN_POLICY_HEIGHT_PX,
    glyph_box,
    letter_heights,
    policy_scale,
    project,
    resize_with_pad,
)
from rsb_mj.suites import SUITES
from rsb_mj.tables.families import load_table


@pytest.fixture(scope="module")
def robot() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = aloha.aloha_spec("fast").compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_look_at_point_projects_to_the_image_centre(robot):
    model, data = robot
    target = table_to_world(*aloha.HEAD_TARGET)
    np.testing.assert_allclose(
        project(model, data, "head", target, 320, 240), [160, 120], atol=1e-9
    )
    # Table +x is image right; table +y (away from the robot) is image up.
    right = project(model, data, "head", target + np.array([0.1, 0, 0]), 320, 240)
    far = project(model, data, "head", target + np.array([0, 0.1, 0]), 320, 240)
    assert right[0] > 160 and right[1] == pytest.approx(120)
    assert far[1] < 120 and far[0] == pytest.approx(160)


def test_a_point_behind_the_camera_is_refused(robot):
    model, data = robot
    behind = data.cam_xpos[model.camera("head").id] + [0, -0.5, 0.5]
    with pytest.raises(SceneError, match="camera 'head': a point lies behind the camera"):
        project(model, data, "head", behind, 320, 240)


def test_candidate_regions_zone_and_tall_objects_are_in_view(robot):
    """Every candidate region of the six suites (the layout keeps footprints inside it) up
    to block height, the answer zone and 16.5 cm tall objects standing in the 4-choice
    region lie inside the 320x240 head image."""
    model, data = robot
    points = []
    for path in sorted({s.path for s in SUITES.values()}):
        problem = load_task(path)
        for region in problem.regions:
            for r in region.ranges:
                for x, y, z in itertools.product((r.x0, r.x1), (r.y0, r.y1), (0.0, 0.04)):
                    points.append(table_to_world(x, y, z))
    for x, y in itertools.product((-0.25, 0.25), (-0.1, 0.02)):
        points.append(table_to_world(x, y, 0.165))
    px = project(model, data, "head", np.array(points), 320, 240)
    assert px.min() > 0 and px[:, 0].max() < 320 and px[:, 1].max() < 240


def test_glyph_boxes_share_their_height_and_differ_in_width():
    boxes = {letter: glyph_box(letter) for letter in "ABCDEFGHIK"}
    assert {(b[1], b[3]) for b in boxes.values()} == {(8 / 64, 57 / 64)}
    width = {letter: b[2] - b[0] for letter, b in boxes.items()}
    assert width["I"] == min(width.values()) and width["A"] > 3 * width["I"]


def test_policy_input_is_openpis_resize_with_pad():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    out, frame = resize_with_pad(image)
    assert policy_scale(320, 240) == 0.7
    assert out.shape == (224, 224, 3) and frame == (0.7, 0.0, 28.0)
    assert not out[:28].any() and not out[196:].any()
    expected = np.asarray(Image.fromarray(image).resize((224, 168), resample=Image.BILINEAR))
    np.testing.assert_array_equal(out[28:196], expected)


@pytest.mark.parametrize("choices", [4, 10])
def test_letters_are_tall_enough_at_320x240_and_224x224(choices):
    """A sample of 25 rows of each frozen eval table (every 20th of the first 500) of the
    three suites with ``choices`` candidates (their task files differ only in questions)."""
    suites = [s for s in SUITES.values() if s.choices == choices]
    scene = compile_scene(load_task(suites[0].path))
    data = mujoco.MjData(scene.model)
    heights = []
    for suite in suites:
        for episode in load_table(suite.name, "eval")[:500:20]:
            scene.apply_episode(data, episode)
            letters = {obj: letter for letter, obj in episode.mapping.items()}
            got = letter_heights(scene, data, letters, width=320, height=240)
            assert set(got) == set(scene.candidates)
            heights.extend(got.values())
    assert len(heights) == 3 * 25 * choices
    assert min(heights) >= MIN_HEIGHT_PX
    assert min(heights) * policy_scale(320, 240) >= MIN_POLICY_HEIGHT_PX
    # The old head camera (eye (0, -0.5, 0.58), 60 deg) showed them 5-7 px tall.
    assert max(heights) < 20.0
    # Layout-independent: one block anywhere its region allows, at either yaw limit.
    obj = scene.candidates[0]
    region = scene.problem.region(scene.problem.placement_of(obj)).ranges[0]
    inset = footprint_radius("letter_block")
    adr = scene.model.joint(f"{obj}/free").qposadr[0]
    swept = []
    for x, y, yaw in itertools.product(
        np.linspace(region.x0 + inset, region.x1 - inset, 9),
        np.linspace(region.y0 + inset, region.y1 - inset, 5),
        (-0.3, 0.3),
    ):
        data.qpos[adr : adr + 3] = table_to_world(x, y, scene.rest_height[obj])
        data.qpos[adr + 3 : adr + 7] = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
        mujoco.mj_kinematics(scene.model, data)
        swept.extend(letter_heights(scene, data, {obj: "A"}).values())
    assert min(swept) >= MIN_HEIGHT_PX and min(swept) * 0.7 >= MIN_POLICY_HEIGHT_PX
