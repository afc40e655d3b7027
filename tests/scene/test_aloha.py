"""Tests of rsb_mj.scene.aloha: the position-controlled Aloha at its table."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.scene import aloha
from rsb_mj.workspace import ARM_BASE_XY, TABLE_TOP_Z


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return aloha.aloha_spec("fast").compile()


def test_names_actuators_and_timestep(model):
    assert model.opt.timestep == 0.002
    assert model.nu == 16
    for side in aloha.SIDES:
        for name in (*aloha.arm_joints(side), *aloha.finger_joints(side)):
            act = model.actuator(name)
            assert act.trnid[0] == model.joint(name).id
            # Position servo: force = kp * (ctrl - q) - kv * qdot.
            assert act.biasprm[1] == -act.gainprm[0] < 0
        assert model.site(aloha.gripper_site(side)).id >= 0
        assert model.camera(f"{side}_wrist").id >= 0
        base = model.body(f"{side}_arm_mount")
        assert base.id >= 0
    assert model.camera("head").id >= 0
    assert tuple(model.actuator("left/shoulder").ctrlrange) == (-1.85005, 1.25664)
    assert tuple(model.actuator("right/left_finger").ctrlrange) == (0.002, 0.037)


def test_arm_bases_stand_on_the_table_at_their_documented_places(model):
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    for side, (x, y) in ARM_BASE_XY.items():
        np.testing.assert_allclose(
            data.body(f"{side}_arm_mount").xpos, [x, y, TABLE_TOP_Z], atol=1e-9
        )


def test_home_pose_holds_still_without_warnings(model):
    data = mujoco.MjData(model)
    qpos, ctrl = aloha.home_qpos_ctrl(model)
    data.qpos[:] = qpos
    data.ctrl[:] = ctrl
    mujoco.mj_step(model, data, nstep=500)
    assert data.warning.number.sum() == 0
    assert np.abs(data.qpos - qpos).max() < 1e-3
    # The two tool sites mirror each other across x = 0.
    left, right = data.site("left/gripper").xpos, data.site("right/gripper").xpos
    np.testing.assert_allclose(left * [-1, 1, 1], right, atol=1e-5)


def test_grippers_close_and_open_to_their_commanded_targets(model):
    data = mujoco.MjData(model)
    qpos, ctrl = aloha.home_qpos_ctrl(model)
    data.qpos[:] = qpos
    ctrl[model.actuator("left/left_finger").id] = aloha.gripper_to_finger(0.0)
    ctrl[model.actuator("left/right_finger").id] = aloha.gripper_to_finger(0.0)
    data.ctrl[:] = ctrl
    mujoco.mj_step(model, data, nstep=250)
    fingers = [data.joint(n).qpos[0] for n in aloha.finger_joints("left")]
    np.testing.assert_allclose(fingers, 0.002, atol=5e-4)
    assert aloha.finger_to_gripper(np.mean(fingers)) < 0.02
    right = [data.joint(n).qpos[0] for n in aloha.finger_joints("right")]
    np.testing.assert_allclose(right, 0.037, atol=5e-4)


def test_gripper_mapping_is_linear_and_clipped():
    assert aloha.gripper_to_finger(0.0) == 0.002
    assert aloha.gripper_to_finger(1.0) == 0.037
    assert aloha.gripper_to_finger(2.0) == 0.037
    assert aloha.finger_to_gripper(0.0195) == pytest.approx(0.5)
    assert aloha.finger_to_gripper(0.041) == 1.0


def test_fast_preset_has_lighter_visual_meshes_than_full():
    fast = aloha.aloha_spec("fast").compile()
    full = aloha.aloha_spec("full").compile()
    visual = lambda m: sum(  # noqa: E731
        int(m.mesh_facenum[m.geom_dataid[g]])
        for g in range(m.ngeom)
        if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH and m.geom_group[g] == 1
    )
    assert visual(full) > 300_000
    assert visual(fast) < visual(full) / 2


def test_unknown_quality_lists_the_valid_ones():
    with pytest.raises(SceneError, match=r"unknown quality 'ultra'; valid choices: fast, full"):
        aloha.aloha_spec("ultra")


def test_a_cold_cache_shows_its_build_on_stderr_and_a_warm_one_nothing(
    tmp_path, monkeypatch, capsys
):
    """The README's main job on a cold machine: ``rsb eval`` builds the robot's mesh cache in
    ``RSB_MJ_CACHE`` (an empty folder here) before its first episode, saying so on stderr
    mesh by mesh; run again, the cache is there and nothing about it is printed."""
    import re

    from rsb_mj.cli import main
    from rsb_mj.scene import cache

    monkeypatch.setenv("RSB_MJ_CACHE", str(tmp_path / "cache"))
    cache.cache_root.cache_clear()
    try:
        argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "1",
                "--max-steps", "2", "-j", "1", "--out"]  # fmt: skip
        assert main([*argv, str(tmp_path / "cold")]) == 0
        err = capsys.readouterr().err.splitlines()
        folder = tmp_path / "cache" / cache.versions_key()
        meshes = len(mujoco.MjSpec.from_string(aloha.robosuite_xml()).meshes)
        head = "rsb_mj: building the mesh cache (first use, ~25 s): "
        assert err[0] == f"{head}0/{meshes} meshes, in {folder}"
        built = [line.removeprefix(head) for line in err if line.startswith(head)][1:]
        counts = [int(re.match(r"(\d+)/", line)[1]) for line in built]
        assert counts == sorted(counts) and counts[-1] == meshes and len(counts) >= 5
        assert re.fullmatch(rf"{meshes}/{meshes} meshes \(100%\), \d+ s", built[-1])
        assert err[len(built) + 1].startswith("rsb eval: 1/1 episodes (100%)")  # then episodes
        assert sorted(p.name for p in folder.iterdir()) == [
            "aloha_meshes.npz",
            "aloha_robosuite.xml",
        ]
        assert main([*argv, str(tmp_path / "warm")]) == 0
        assert "mesh cache" not in capsys.readouterr().err
    finally:
        cache.cache_root.cache_clear()
