"""Tests of rsb_mj.env.culling: geoms outside a camera's view are not drawn, and every image
stays the same pixel for pixel."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.env.cameras import CameraRig
from rsb_mj.env.culling import GeomBounds, cull_outside_view
from rsb_mj.scene.aloha import SIDES, aloha_spec, arm_joints, home_qpos_ctrl
from rsb_mj.workspace import CAMERAS


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
    cull_outside_view(renderer.scene, data, rig._bounds, rig.width / rig.height)
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


def test_bounds_are_the_box_of_the_mesh_vertices_and_the_box_itself(scene):
    model, _ = scene
    bounds = GeomBounds(model)
    geom = model.geom("left/left_finger_g0")
    mesh = geom.dataid[0]
    start, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
    verts = model.mesh_vert[start : start + count].astype(float)
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    np.testing.assert_allclose(bounds.center[geom.id], (lo + hi) / 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(bounds.half[geom.id], (hi - lo) / 2, rtol=0, atol=1e-15)
    table = model.geom("table_top").id
    assert bounds.cullable[table] and (bounds.center[table] == 0).all()
    np.testing.assert_array_equal(bounds.half[table], model.geom_size[table])
    floor = model.geom("floor").id  # a plane is never culled
    assert not bounds.cullable[floor] and (bounds.half[floor] == 0).all()
