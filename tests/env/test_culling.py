"""Tests of rsb_mj.env.culling: geoms outside a camera's view are not drawn, and every image
stays the same pixel for pixel."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.env.cameras import CAMERAS, CameraRig
from rsb_mj.env.culling import MARGIN_ABS, MARGIN_REL, GeomBounds, cull_outside_view
from rsb_mj.scene.aloha import SIDES, aloha_spec, arm_joints, home_qpos_ctrl


@pytest.fixture(scope="module")
def scene():
    model = aloha_spec("fast").compile()
    data = mujoco.MjData(model)
    data.qpos[:], _ = home_qpos_ctrl(model)
    mujoco.mj_forward(model, data)
    return model, data


def _poses(model, data, n, seed=0):
    """``n`` arm poses around home (each joint moved up to 0.6 rad), from one generator."""
    rng = np.random.default_rng(seed)
    home = data.qpos.copy()
    adr = [model.joint(j).qposadr[0] for side in SIDES for j in arm_joints(side)]
    for _ in range(n):
        data.qpos[:] = home
        data.qpos[adr] += rng.uniform(-0.6, 0.6, len(adr))
        mujoco.mj_forward(model, data)
        yield
    data.qpos[:] = home
    mujoco.mj_forward(model, data)


def _culled(rig, data, camera):
    """Names of the geoms culled from ``camera``'s scene (the scene is rebuilt after)."""
    renderer = rig._get()
    renderer.update_scene(data, camera=camera, scene_option=rig.option)
    ids = [renderer.scene.geoms[i].objid for i in range(renderer.scene.ngeom)]
    cull_outside_view(renderer.scene, rig._bounds, rig.width / rig.height)
    gone = [
        ids[i] for i in range(renderer.scene.ngeom) if renderer.scene.geoms[i].type == 1001
    ]  # mjGEOM_NONE
    return {rig._model.geom(g).name for g in gone}


def test_culled_images_are_the_drawn_ones_pixel_for_pixel(scene):
    model, data = scene
    culled = CameraRig(model, CAMERAS, 160, 120, "fast")
    full = CameraRig(model, CAMERAS, 160, 120, "fast", cull=False)
    dropped = 0
    for _ in _poses(model, data, 6):
        for cam in CAMERAS:
            dropped += len(_culled(culled, data, cam))
            np.testing.assert_array_equal(culled.render(data, cam), full.render(data, cam))
    assert dropped > 20  # the test compares images with geoms actually left out
    culled.close()
    full.close()


def test_a_wrist_camera_drops_the_other_arm_and_keeps_its_own_fingers(scene):
    model, data = scene
    rig = CameraRig(model, CAMERAS, 160, 120, "fast")
    gone = _culled(rig, data, "left_wrist")
    kept_meshes = {
        model.geom(g).name
        for g in range(model.ngeom)
        if model.geom_group[g] in (1, 2) and model.geom(g).name not in gone
    }
    assert "right/left_finger_g0" in gone and "left/left_finger_g0" in kept_meshes
    assert "table_top" in kept_meshes
    rig.close()


def test_nothing_is_culled_with_shadows(scene):
    model, data = scene
    rig = CameraRig(model, ("left_wrist",), 160, 120, "full")
    assert _culled(rig, data, "left_wrist") == set()
    rig.close()


def test_bounds_are_the_farthest_vertex_and_the_half_diagonal_widened(scene):
    model, _ = scene
    bounds = GeomBounds(model)
    mesh = model.mesh("gripper0_left_vx300s_8_custom_finger_left_lite").id
    start, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
    farthest = np.linalg.norm(model.mesh_vert[start : start + count].astype(float), axis=1).max()
    assert bounds.mesh_radius[mesh] == pytest.approx(farthest, rel=1e-12)
    box = mujoco.MjvGeom()
    box.type, box.size[:], box.rgba[:] = mujoco.mjtGeom.mjGEOM_BOX, (0.3, 0.4, 1.2), (1, 1, 1, 1)
    assert bounds.radius(box) == pytest.approx(1.3 * (1 + MARGIN_REL) + MARGIN_ABS, rel=1e-6)
    box.rgba[3] = 0.5  # transparent geoms are drawn last and sorted: never culled
    assert bounds.radius(box) is None
    box.rgba[3], box.type = 1.0, mujoco.mjtGeom.mjGEOM_SPHERE
    assert bounds.radius(box) is None
