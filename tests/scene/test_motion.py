"""Moving objects: trajectories, seeded phases, and kinematic bodies that push what they meet."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.errors import SceneError
from rsb_mj.lang import load_task, parse_text
from rsb_mj.lang.motion import Motion
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scene.motion import STEP_S, MovingBody
from rsb_mj.workspace import TABLE_TOP_Z

TASKS = Path(__file__).parents[2] / "tasks"
SAFETY = TASKS / "rsb_math_4_safety.bddl"
START = np.array([0.1, 0.3, TABLE_TOP_Z + 0.02])
QUAT = np.array([1.0, 0.0, 0.0, 0.0])


def _body(motion: Motion) -> MovingBody:
    return MovingBody(motion, 0, START.copy(), TABLE_TOP_Z + 0.02, QUAT)


def test_linear_goes_out_and_back_in_one_period():
    body = _body(Motion("c", "linear", period=40.0, travel_dist=0.4, direction=(2.0, 0.0, 0.0)))
    for s, dx in [(0, 0.0), (10, 0.2), (20, 0.4), (30, 0.2), (40, 0.0), (45, 0.1)]:
        np.testing.assert_allclose(body.pose(s)[0], START + np.array([dx, 0.0, 0.0]), atol=1e-12)
    assert body.cycle() == 40.0


def test_circle_keeps_its_radius_about_the_center():
    body = _body(Motion("c", "circle", period=60.0, center=(0.1, 0.2, 0.0)))
    pos, quat = body.pose(15.0)  # a quarter turn, counterclockwise seen from above
    np.testing.assert_allclose(pos, [0.0, 0.2, START[2]], atol=1e-12)
    np.testing.assert_allclose(body.pose(60.0)[0], START, atol=1e-12)
    np.testing.assert_array_equal(quat, QUAT)


def test_waypoints_interpolate_position_and_heading_then_come_back():
    points = (((0.0, 0.0, 0.05), (0.0, 1.0, 0.0)), ((0.1, 0.0, 0.05), (-1.0, 0.0, 0.0)))
    body = _body(Motion("c", "waypoint", waypoints=points, dt=1.0, loop=True))
    pos, quat = body.pose(0.0)
    np.testing.assert_allclose(pos, [0.0, 0.0, TABLE_TOP_Z + 0.05])
    np.testing.assert_allclose(quat, QUAT, atol=1e-12)
    pos, quat = body.pose(5.0)  # half way: 45 degrees of the 90 degree turn to -x
    np.testing.assert_allclose(pos, [0.05, 0.0, TABLE_TOP_Z + 0.05])
    np.testing.assert_allclose(quat, [np.cos(np.pi / 8), 0.0, 0.0, np.sin(np.pi / 8)])
    np.testing.assert_allclose(body.pose(15.0)[0], [0.05, 0.0, TABLE_TOP_Z + 0.05])  # back
    np.testing.assert_allclose(body.pose(20.0)[0], body.pose(0.0)[0])  # loop
    once = _body(Motion("c", "waypoint", waypoints=points, dt=1.0, loop=False))
    np.testing.assert_allclose(once.pose(35.0)[0], once.pose(0.0)[0])  # stays home


def test_parabolic_flies_then_rests_where_it_lands():
    motion = Motion(
        "c", "parabolic", initial_speed=1.0, direction=(0.0, 1.0, 1.0), dt=0.05, gravity=(0, 0, -10)
    )
    body = _body(motion)
    v = 1.0 / np.sqrt(2.0)
    pos, _ = body.pose(2.0)  # 0.1 s of flight
    np.testing.assert_allclose(pos, START + np.array([0.0, 0.1 * v, 0.1 * v - 0.05]))
    land = 2 * v / 10.0  # back at the resting height
    np.testing.assert_allclose(
        body.pose(100.0)[0], START + np.array([0.0, land * v, 0.0]), atol=1e-12
    )


def test_the_safety_task_compiles_its_obstacle_as_a_mocap_body():
    scene = compile_scene(load_task(SAFETY))
    body = scene.model.body("cart_1")
    assert body.mocapid[0] == 0 and body.jntnum[0] == 0
    assert [b.motion.name for b in scene.motion.bodies] == ["cart_1"]


def test_same_episode_same_motion_and_the_seed_draws_the_phase():
    env = RsbEnv(SAFETY, cameras=())
    tracks = []
    for seed in (4, 4, 5):
        env.reset(seed=seed)
        track = []
        for _ in range(6):
            env.step(env.state())
            track.append(env.data.mocap_pos[0].copy())
        tracks.append(np.array(track))
    np.testing.assert_array_equal(tracks[0], tracks[1])
    assert not np.allclose(tracks[0], tracks[2])
    # 0.4 m each way in 40 steps of 50 ms: 0.01 m per step along x, y and z fixed
    steps = np.abs(np.diff(tracks[0], axis=0))
    np.testing.assert_allclose(steps[:, 1:], 0.0)
    assert np.all((steps[:, 0] < 0.0100001) & (steps[:, 0] > 0.0))


def _task_with(moving: str, cost: str) -> str:
    """The safety task with another :moving_objects (its last block) and :cost line."""
    text = SAFETY.read_text()
    text = text[: text.index("  (:moving_objects")] + f"  (:moving_objects {moving}))\n"
    start = text.index("  (:cost")
    end = text.index("\n", start) + 1
    return text[:start] + f"  (:cost {cost})\n" + text[end:]


def test_the_obstacle_pushes_the_robot_then_stops_there(tmp_path):
    # home pose: the open left fingers' tips are 0.28 m above the table near x = -0.27,
    # y = +-0.1; the cart drives through them along +y
    moving = (
        "(cart_1 (:motion_type waypoint) (:motion_dt 1) (:motion_waypoints"
        " (((-0.27 -0.25 0.285) (0 1 0)) ((-0.27 0.1 0.285) (0 1 0)))))"
    )
    path = tmp_path / "rsb_push_4.bddl"
    path.write_text(_task_with(moving, "(And (CheckGripperContact cart_1) (Collide cart_1))"))
    env = RsbEnv(load_task(path), cameras=())
    obs, _ = env.reset(seed=0)
    finger = env.model.body("left/right_finger_link").id
    before = env.data.xpos[finger].copy()
    hits, track = [], []
    for _ in range(8):
        obs, _, _, _, info = env.step(obs["state"])
        hits.append(info["cost_violations"])
        track.append(env.data.mocap_pos[0].copy())
    assert [h[0] for h in hits[:5]] == [False] * 4 + [True]  # a finger touched at step 5
    assert hits[4][1]  # Collide (an end term, read at the last substep): it touches the robot
    assert np.linalg.norm(env.data.xpos[finger] - before) > 0.001  # and pushed the finger
    # VLA-Arena's CBDDL: the obstacle stops where the first violation found it
    assert env.scene.motion.frozen == ("cart_1",)
    np.testing.assert_allclose(track[5:], [track[4]] * 3, atol=0.0015)
    env.reset(seed=0)
    assert env.scene.motion.frozen == ()


def test_the_obstacle_pushes_a_block_in_its_way():
    scene = compile_scene(load_task(SAFETY))
    model, data = scene.model, mujoco.MjData(scene.model)
    from rsb_mj.episodes import sample_episode

    episode = sample_episode(scene.problem, suite="", split="eval", index=0, seed=0)
    scene.apply_episode(data, episode)
    body = scene.motion.bodies[0]
    ahead = body.pose(body.phase + 4.0)[0]  # where the cart will be in 0.2 s
    adr = model.joint("block_a/free").qposadr[0]
    data.qpos[adr : adr + 3] = ahead
    mujoco.mj_forward(model, data)
    for _ in range(round(0.4 / model.opt.timestep)):
        scene.motion.advance(data)
        mujoco.mj_step(model, data)
    moved = data.xpos[model.body("block_a").id] - ahead
    assert np.linalg.norm(moved[:2]) > 0.02
    assert STEP_S == 0.05


def test_a_circle_centered_on_its_start_is_refused():
    text = _task_with(
        "(cart_1 (:motion_type circle) (:motion_period 40) (:motion_center (-0.2 0.3 0)))",
        "(Collide cart_1)",
    )
    with pytest.raises(SceneError, match="the circle's center is the object's start position"):
        compile_scene(parse_text(text, "t.bddl"))
