"""Tests of rsb_mj.env.rsb_env.RsbEnv: API, determinism, images, signals."""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium
import mujoco
import numpy as np
import pytest

import rsb_mj  # noqa: F401  (registers the ids)
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.errors import EnvError
from rsb_mj.suites import get_suite


def test_reset_returns_state_images_and_info():
    env = gymnasium.make("rsb_mj/RSB-Math-10-v0")
    obs, info = env.reset(seed=0)
    assert set(obs["images"]) == {"head", "left_wrist", "right_wrist"}
    for image in obs["images"].values():
        assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    assert obs["state"].shape == (14,) and obs["state"].dtype == np.float64
    np.testing.assert_allclose(obs["state"][[6, 13]], 1.0)  # grippers open at home
    assert info["candidates"] == env.unwrapped.scene.candidates
    assert len(info["candidates"]) == 10 and info["step"] == 0
    assert info["instruction"] == env.unwrapped.episode.instruction
    assert env.unwrapped.episode.suite == "RSB-Math-10"
    # nothing in info holds or determines the answer
    assert set(info) == {
        "instruction",
        "candidates",
        "step",
        "signals",
        "is_success",
        "cost",
        "cost_violations",
        "sim",
    }
    assert info["is_success"] is False
    assert info["sim"]["mujoco"] == mujoco.__version__ and info["sim"]["quality"] == "fast"
    assert {k: v.shape for k, v in info["signals"].items()} == {
        "contact": (1, 10, 2),
        "pinch": (1, 10, 2),
        "table_contact": (1, 10),
        "gripper_cmd": (1, 2),
        "gripper_open": (1, 2),
        "lift": (1, 10),
        "in_zone": (1, 10),
    }
    obs, reward, terminated, truncated, info = env.step(obs["state"])
    assert (reward, terminated, truncated, info["step"]) == (0.0, False, False, 1)
    assert info["signals"]["contact"].shape == (25, 10, 2)
    assert env.spec.max_episode_steps == 400
    env.close()


def _project(data: mujoco.MjData, model: mujoco.MjModel, cam: str, point, w: int, h: int):
    """Pixel (row, col) of a world point for an upright image (row 0 at the top)."""
    c = data.cam(cam)
    local = c.xmat.reshape(3, 3).T @ (np.asarray(point) - c.xpos)  # camera looks along -z
    f = (h / 2) / math.tan(math.radians(model.cam_fovy[model.camera(cam).id]) / 2)
    row = h / 2 - f * local[1] / -local[2]
    col = w / 2 + f * local[0] / -local[2]
    return round(row), round(col)


def test_images_are_upright_the_gray_zone_is_where_the_camera_model_puts_it():
    env = RsbEnv(get_suite("RSB-Math-4").path)
    obs, _ = env.reset(seed=1)
    zone = env.scene.zone_center
    for cam, image in obs["images"].items():
        row, col = _project(env.data, env.model, cam, zone, 320, 240)
        assert 0 <= row < 240 and 0 <= col < 320, cam
        r, g, b = image[row, col].astype(int)
        assert abs(r - b) < 12 and abs(r - g) < 12, f"{cam}: {(r, g, b)} is not the gray zone"
        # Flipped vertically, the same pixel shows something else (table, fingers, sky).
        flipped = image[239 - row, col].astype(int)
        assert np.abs(flipped - [r, g, b]).max() > 20 or abs(239 - 2 * row) < 20, cam
    env.close()


def test_same_seed_gives_identical_bytes_over_50_steps():
    runs = []
    for _ in range(2):
        env = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4")
        obs, _ = env.reset(seed=42)
        rng = np.random.default_rng(0)
        frames = [obs["images"]["head"].tobytes()]
        states = [obs["state"].tobytes()]
        action = obs["state"].copy()
        for _ in range(50):
            action[:6] += rng.normal(0, 0.02, 6)
            action[7:13] += rng.normal(0, 0.02, 6)
            obs, *_ = env.step(action)
            frames.append(b"".join(obs["images"][c].tobytes() for c in sorted(obs["images"])))
            states.append(obs["state"].tobytes())
        runs.append((frames, states))
        env.close()
    assert runs[0][1] == runs[1][1]
    assert runs[0][0] == runs[1][0]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (np.zeros(13), r"action has shape \(13,\); expected \(14,\)"),
        (np.zeros((2, 14)), r"action has shape \(2, 14\); expected \(14,\)"),
        (np.r_[np.zeros(5), np.nan, np.zeros(8)], r"action has non-finite values at indices \[5\]"),
        ("open", r"action must be 14 numbers, got str"),
    ],
)
def test_bad_actions_raise_env_error(blind_env, action, message):
    blind_env.reset(seed=0)
    with pytest.raises(EnvError, match=message):
        blind_env.step(action)


def test_bad_options_and_episodes_are_rejected(blind_env):
    with pytest.raises(
        EnvError, match=r"unknown reset options \['layout'\]; valid choices: episode, score"
    ):
        blind_env.reset(options={"layout": {}})
    blind_env.reset(seed=3)
    row = blind_env.episode.to_dict()
    row["mapping"] = {k: f"x_{v}" for k, v in row["mapping"].items()}
    with pytest.raises(EnvError, match=r"this task's candidates are \['block_a', 'block_b'"):
        blind_env.reset(options={"episode": row})


def test_an_unscored_episode_runs_the_same_physics_and_never_terminates(blind_env):
    """``options["score"] = False`` (a sealed run's rollout scores on its own): no scorer,
    reward 0, never ``terminated``, ``is_success`` False; the physics and signals as when
    scored. Row 1: ``nearest-to-zone``'s first grasp is wrong, which terminates it."""
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.policies.spec import make_policy
    from rsb_mj.tables.episode_source import load_episode

    episode = load_episode("RSB-Math-4", "eval", 1)
    actions: list[np.ndarray] = []
    record = Rollout(
        blind_env, make_policy("nearest-to-zone"), episode, blind_env.problem, max_steps=200,
        on_step=lambda obs, action: actions.append(np.array(action)),
    ).run()  # fmt: skip
    assert record.termination == "wrong_choice" and len(actions) == record.grasp_step

    def replay(**options):
        blind_env.reset(options={"episode": episode, **options})
        steps = [blind_env.step(a) for a in actions]
        return blind_env.scorer, steps

    scorer, scored = replay()
    assert scorer is not None and [s[2] for s in scored] == [False] * (len(actions) - 1) + [True]
    scorer, unscored = replay(score=False)
    assert scorer is None
    ends = {(reward, terminated, truncated, info["is_success"])
            for _, reward, terminated, truncated, info in unscored}  # fmt: skip
    assert ends == {(0.0, False, False, False)}
    for (obs, *_, info), (obs_u, *_, info_u) in zip(scored, unscored, strict=True):
        np.testing.assert_array_equal(obs["state"], obs_u["state"])
        assert info["signals"].keys() == info_u["signals"].keys()
        for name, values in info["signals"].items():
            np.testing.assert_array_equal(values, info_u["signals"][name])


def test_reset_with_an_episode_dict_replays_it(blind_env):
    blind_env.reset(seed=7)
    first = blind_env.episode
    state1 = blind_env.data.qpos.copy()
    blind_env.reset(seed=99, options={"episode": first.to_dict()})
    assert blind_env.episode == first
    np.testing.assert_array_equal(blind_env.data.qpos, state1)


def test_contact_lift_and_gripper_signals_when_a_gripper_holds_a_block(blind_env):
    env = blind_env
    obs, _ = env.reset(seed=0)
    block = env.scene.candidates[2]
    adr = env.model.joint(f"{block}/free").qposadr[0]
    # Put the block between the open right fingers, 25 cm above the table, and close them.
    env.data.qpos[adr : adr + 3] = env.data.site("right/gripper").xpos
    env.data.qpos[adr + 3 : adr + 7] = [1, 0, 0, 0]
    mujoco.mj_forward(env.model, env.data)
    action = obs["state"].copy()
    action[13] = 0.0
    for _ in range(6):
        _, _, _, _, info = env.step(action)
    sig = info["signals"]
    n = env.scene.candidates.index(block)
    assert sig["contact"][-1, n].tolist() == [False, True]
    assert not sig["contact"][-1, np.arange(4) != n].any()
    assert sig["lift"][-1, n] > 0.15
    assert np.all(np.abs(sig["lift"][-1, np.arange(4) != n]) < 1e-3)
    np.testing.assert_array_equal(sig["gripper_cmd"][-1], [1.0, 0.0])
    assert sig["gripper_open"][-1, 0] > 0.99
    assert 0.4 < sig["gripper_open"][-1, 1] < 0.8  # stopped by the 4 cm block


def test_in_zone_is_true_only_for_a_block_resting_in_the_zone(blind_env):
    env = blind_env
    obs, _ = env.reset(seed=0)
    block = env.scene.candidates[1]
    adr = env.model.joint(f"{block}/free").qposadr[0]
    env.data.qpos[adr : adr + 3] = env.scene.zone_center + np.array([0.01, -0.02, 0.02])
    mujoco.mj_forward(env.model, env.data)
    _, _, _, _, info = env.step(obs["state"])
    in_zone = info["signals"]["in_zone"]
    assert in_zone.shape == (25, 4)
    assert in_zone[:, 1].all() and not in_zone[:, [0, 2, 3]].any()


def test_constructor_arguments_are_validated():
    path = get_suite("RSB-Math-4").path
    with pytest.raises(EnvError, match=r"unknown cameras \['top'\]; valid choices: head, "):
        RsbEnv(path, cameras=("top",))
    with pytest.raises(EnvError, match=r"unknown quality 'best'; valid choices: fast, full"):
        RsbEnv(path, quality="best")
    with pytest.raises(EnvError, match=r"unknown split 'test'; valid choices: train, eval"):
        RsbEnv(path, split="test")
    with pytest.raises(EnvError, match=r"RsbEnv needs task=PATH"):
        gymnasium.make("rsb_mj/RSB-Task-v0")


def test_noisy_random_control_raises_no_mujoco_warning(blind_env):
    env = blind_env
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=4)
    action = obs["state"].copy()
    for _ in range(40):  # 2 s of a random walk over the whole action space
        action = np.clip(
            action + rng.normal(0, 0.15, 14), env.action_space.low, env.action_space.high
        )
        env.step(action)
    assert env.data.warning.number.sum() == 0
    assert np.isfinite(env.data.qpos).all()


def test_control_rate_50_hz_steps_ten_physics_steps_and_is_recorded():
    from rsb_mj.env import RsbEnv

    env = RsbEnv(get_suite("RSB-Math-4").path, cameras=(), control_hz=50)
    try:
        obs, info = env.reset(seed=1)
        assert (info["sim"]["control_hz"], info["sim"]["substeps"]) == (50, 10)
        t0 = env.data.time
        obs, *_, info = env.step(obs["state"])
        assert env.data.time - t0 == pytest.approx(0.02)
        assert info["signals"]["lift"].shape == (10, 4)
        assert env.metadata["render_fps"] == 50
    finally:
        env.close()
    with pytest.raises(EnvError, match=r"control_hz 30: the physics runs at 500 Hz, so the "):
        RsbEnv(get_suite("RSB-Math-4").path, cameras=(), control_hz=30)


def test_cost_is_reported_every_step(tmp_path):
    text = (Path(__file__).parents[2] / "tasks" / "rsb_math_4.bddl").read_text()
    cost = "(:cost (And (CheckForce block_a table 0.1) (Fall block_a) (Up block_b)))"
    task = tmp_path / "rsb_cost_4.bddl"
    task.write_text(text.replace("  (:layout", f"  {cost}\n  (:layout"))
    env = RsbEnv(task, cameras=())
    obs, info = env.reset(seed=0)
    assert info["cost_terms"] == {
        "terms": [
            ("(CheckForce block_a table 0.1)", "step"),
            ("(Fall block_a)", "end"),
            ("(Up block_b)", "step"),
        ],
        "implicit_and": False,
    }
    assert (info["cost"], info["cost_violations"]) == (0.0, (False, False, False))
    for _ in range(3):
        obs, _, _, _, info = env.step(obs["state"])
        # the resting block presses on the table with its weight (> 0.1 N): 1 per step
        assert (info["cost"], info["cost_violations"]) == (1.0, (True, False, False))
    assert "cost_terms" not in info


def test_a_task_without_cost_reports_zero():
    env = RsbEnv(get_suite("RSB-Math-4").path, cameras=())
    obs, info = env.reset(seed=0)
    assert "cost_terms" not in info
    _, _, _, _, info = env.step(obs["state"])
    assert (info["cost"], info["cost_violations"]) == (0.0, ())


def test_a_libero_file_lists_every_part_rsb_cannot_build_with_its_position():
    from pathlib import Path

    from rsb_mj.lang import TaskFileError, lint_file

    path = (
        Path(__file__).resolve().parents[1]
        / "data/bddl_corpus/libero/libero_spatial"
        / "pick_up_the_black_bowl_on_the_stove_and_place_it_on_the_plate.bddl"
    )
    with pytest.raises(TaskFileError) as caught:
        RsbEnv(path, cameras=())
    lines = str(caught.value).splitlines()
    assert lines[0] == (
        f"{path}: rsb_mj cannot build this scene (4 parts listed below as RSB510); it reads "
        "LIBERO / VLA-Arena files but builds only rsb scenes: a table, rsb object categories, "
        ":candidates and a :question"
    )
    assert [line.split(" RSB510 foreign-scene: ")[1].split(";")[0] for line in lines[1:]] == [
        "no (:candidates ...) block: rsb_mj needs the objects that stand for the options",
        "no (:question (:source S) (:choices N)) block: rsb_mj asks a question",
        "fixture 'wooden_cabinet_1' (wooden_cabinet, articulated): rsb_mj builds only the table",
        "fixture 'flat_stove_1' (flat_stove, articulated): rsb_mj builds only the table",
    ]  # its objects (bowls, cookies, ramekin, plate) have stand-ins
    assert lines[3].startswith(f"{path}:105:5: RSB510")
    # One fact: the linter, asked for an rsb scene, says the same.
    _, diagnostics = lint_file(path, target="question")
    assert [d.header() for d in diagnostics if d.is_error] == lines[1:]
    # A parsed problem given to the env is checked the same way.
    with pytest.raises(TaskFileError, match=r"rsb_mj cannot build this scene\n"):
        from rsb_mj.lang import parse_file

        RsbEnv(parse_file(path), cameras=())


def test_the_env_reads_the_binding_and_the_scene_not_the_family(blind_env):
    """One Task for every task; what a question task's env does differently follows from
    its candidates (signals, no goal checker, an episode drawn at reset) and from the
    episode's binding (no episode and no goal fields in info)."""
    from rsb_mj.lang.task import Task

    env = blind_env
    assert type(env.task) is Task and env.task.path == str(get_suite("RSB-Math-4").path)
    assert env.task.candidates == env.scene.candidates == env.candidates
    assert (env.checker, env.max_steps, env.goal_info, env.warnings) == (None, None, {}, [])
    _, info = env.reset(seed=0)
    assert env.episode is not None and env.episode.binding is not None
    assert "episode" not in info and "goal" not in info and info["cost_violations"] == ()
    with pytest.raises(EnvError, match=r"^objects= applies to goal tasks only \(a question "):
        RsbEnv(get_suite("RSB-Math-4").path, objects=env.objects)
