"""Tests of rsb_mj.env.cameras.CameraRig: quality presets and camera validation."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.env.cameras import CameraRig
from rsb_mj.errors import EnvError
from rsb_mj.scene.aloha import aloha_spec, home_qpos_ctrl


@pytest.mark.parametrize("quality", ["fast", "full"])
def test_presets_set_shadows_and_multisampling(quality):
    model = aloha_spec(quality).compile()
    data = mujoco.MjData(model)
    data.qpos[:], _ = home_qpos_ctrl(model)
    mujoco.mj_forward(model, data)
    rig = CameraRig(model, ("head", "left_wrist"), 160, 120, quality)
    images = rig.render_all(data)
    flags = rig._get().scene.flags
    assert bool(flags[mujoco.mjtRndFlag.mjRND_SHADOW]) == (quality == "full")
    assert (model.vis.quality.offsamples > 0) == (quality == "full")
    assert set(images) == {"head", "left_wrist"}
    assert images["head"].shape == (120, 160, 3) and images["head"].std() > 10
    again = rig.render(data, "head")
    np.testing.assert_array_equal(again, images["head"])
    rig.close()


def test_unknown_camera_and_bad_size_are_rejected():
    model = aloha_spec("fast").compile()
    with pytest.raises(EnvError, match=r"unknown cameras \['top'\]; valid choices: head, "):
        CameraRig(model, ("top",), 160, 120, "fast")
    with pytest.raises(EnvError, match=r"image size 0x120: width and height must be 1\.\.4096 "):
        CameraRig(model, ("head",), 0, 120, "fast")
