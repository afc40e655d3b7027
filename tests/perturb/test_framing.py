"""V3 keeps every candidate and the answer zone in the head image (rsb_mj/perturb/framing.py)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.perturb.framing import SCALES, box_corners, fit_scale, in_view
from rsb_mj.perturb.visual import CAMERA, CAMERA_RANGE_M, VISUAL_SEED_TAG
from rsb_mj.scene.legibility import project
from rsb_mj.suites import get_suite
from rsb_mj.tables import load_table


def test_in_view_keeps_the_margin():
    uv = np.array([[3.3, 2.5], [316.7, 237.5]])
    assert in_view(uv, 320, 240)
    assert not in_view(uv - np.array([0.2, 0.0]), 320, 240)
    assert not in_view(uv + np.array([0.0, 0.2]), 320, 240)
    assert SCALES[0] == 1.0 and SCALES[-1] == 0.0 and len(SCALES) == 21


def _watched(env: RsbEnv) -> np.ndarray:
    m = env.model
    root = [m.body(int(m.body_rootid[m.geom_bodyid[g]])).name for g in range(m.ngeom)]
    geoms = [
        g
        for g in range(m.ngeom)
        if m.geom_group[g] in (1, 2)
        and (root[g] in env.scene.candidates or m.geom(g).name.startswith("answer_zone/"))
    ]
    return box_corners(m, env.data, geoms)


@pytest.mark.parametrize(
    ("suite", "size"), [("RSB-Math-10", (320, 240)), ("RSB-Math-4", (256, 192))]
)
def test_v3_keeps_every_candidate_and_the_zone_in_the_head_image(suite, size):
    s = get_suite(suite)
    env = RsbEnv(s.path, suite=s.name, cameras=(), visual_level=3, width=size[0], height=size[1])
    plain = RsbEnv(s.path, suite=s.name, cameras=(), width=size[0], height=size[1])
    shortened = 0
    try:
        for episode in load_table(suite)[:40]:
            _, info = env.reset(options={"episode": episode})
            camera = info["sim"]["perturbation"]["camera"]
            rng = np.random.default_rng([episode.seed, VISUAL_SEED_TAG, CAMERA])
            drawn = rng.uniform(-CAMERA_RANGE_M, CAMERA_RANGE_M, size=3)
            assert camera["scale"] in SCALES
            np.testing.assert_allclose(
                camera["offset_m"]["head"], drawn * camera["scale"], atol=5e-5
            )
            shortened += camera["scale"] < 1.0
            uv = project(env.model, env.data, "head", _watched(env), *size)
            assert in_view(uv, *size), (episode.index, camera)
            # without the bound, the drawn offset would have cropped this row
            plain.reset(options={"episode": episode})
            plain.data.cam_xpos[plain.model.camera("head").id] += drawn
            raw = project(plain.model, plain.data, "head", _watched(plain), *size)
            assert in_view(raw, *size) == (camera["scale"] == 1.0)
    finally:
        env.close()
        plain.close()
    assert shortened > 0


def test_fit_scale_gives_up_on_points_out_of_view_and_leaves_the_camera(tmp_path):
    s = get_suite("RSB-Math-4")
    env = RsbEnv(s.path, suite=s.name, cameras=())
    try:
        env.reset(seed=0)
        m, d = env.model, env.data
        cam = m.camera("head").id
        before = d.cam_xpos[cam].copy()
        far = np.array([[5.0, 0.0, 0.75]])
        assert fit_scale(m, d, "head", np.array([0.1, 0.0, 0.0]), far, 320, 240) == 0.0
        near = box_corners(m, d, [m.geom("answer_zone/0").id])
        assert fit_scale(m, d, "head", np.array([0.01, 0.0, 0.0]), near, 320, 240) == 1.0
        np.testing.assert_array_equal(d.cam_xpos[cam], before)
        mujoco.mj_forward(m, d)
        np.testing.assert_array_equal(d.cam_xpos[cam], before)
    finally:
        env.close()
