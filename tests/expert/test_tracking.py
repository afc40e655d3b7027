from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import ExpertError
from rsb_mj.expert.timing import time_parameterize
from rsb_mj.expert.tracking import joint_inertia, lead, servo_gains
from rsb_mj.scene.aloha import ARM_KP, ARM_KV, aloha_spec, arm_joints


def _pendulum(kp=50.0, kv=5.0):
    spec = mujoco.MjSpec()
    spec.option.timestep = 0.002
    spec.option.gravity = [0, 0, 0]
    body = spec.worldbody.add_body(name="link")
    body.add_joint(name="hinge", type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0, 0, 1], armature=0.05)
    body.add_geom(
        type=mujoco.mjtGeom.mjGEOM_CAPSULE, fromto=[0, 0, 0, 0.3, 0, 0], size=[0.02], mass=1.0
    )
    act = spec.add_actuator(name="hinge", target="hinge", trntype=mujoco.mjtTrn.mjTRN_JOINT)
    act.set_to_position(kp=kp, kv=kv)
    spec.add_actuator(name="motor", target="hinge", trntype=mujoco.mjtTrn.mjTRN_JOINT)
    return spec.compile()


def test_reads_the_aloha_servo_gains():
    model = aloha_spec().compile()
    kp, kv = servo_gains(model, arm_joints("right"))
    np.testing.assert_allclose(kp, ARM_KP)
    np.testing.assert_allclose(kv, ARM_KV)


def test_refuses_a_joint_without_a_position_servo():
    model = _pendulum()
    # the hinge's first actuator is the servo; a motor-only joint would be refused
    assert servo_gains(model, ["hinge"])[0][0] == pytest.approx(50.0)
    spec = mujoco.MjSpec()
    b = spec.worldbody.add_body(name="b")
    b.add_joint(name="free_hinge", type=mujoco.mjtJoint.mjJNT_HINGE)
    b.add_geom(size=[0.1, 0, 0])
    with pytest.raises(ExpertError, match="joint 'free_hinge' has no actuator"):
        servo_gains(spec.compile(), ["free_hinge"])


def test_lead_is_the_damping_lag_at_constant_speed():
    traj = np.linspace(0.05, 1.0, 20)[:, None]  # 1 rad/s at dt = 0.05
    out = lead(traj, np.zeros(1), 0.05, np.array([50.0]), np.array([5.0]), np.array([0.0]))
    np.testing.assert_allclose(out[1:-1, 0], traj[1:-1, 0] + 0.1 - 0.025)  # kv/kp - dt/2


def _track(model, targets, substeps=25):
    data = mujoco.MjData(model)
    errs = []
    for k, target in enumerate(targets):
        data.ctrl[0] = target
        for _ in range(substeps):
            mujoco.mj_step(model, data)
        errs.append(data.qpos[0] - planned[min(k, len(planned) - 1)])
    return np.abs(errs)


planned = time_parameterize(np.array([[0.0], [1.2]]), 2.0, 6.0, 0.05)[:, 0]


def test_feed_forward_cuts_the_tracking_error():
    model = _pendulum()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    inertia = joint_inertia(model, data, np.array([0]))
    kp, kv = servo_gains(model, ["hinge"])
    plain = _track(model, planned)
    led = _track(model, lead(planned[:, None], np.zeros(1), 0.05, kp, kv, inertia)[:, 0])
    assert plain.max() > 0.1
    assert led.max() < 0.3 * plain.max()
