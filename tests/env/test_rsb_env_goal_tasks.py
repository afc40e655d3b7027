"""RsbEnv of a goal task (GoalEnv) and the expert (PickPlaceExpert) on a real VLA-Arena file
(tests/data/bddl_suites)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.errors import EnvError
from rsb_mj.expert.arm import choose_side
from rsb_mj.expert.pick_place import PickPlaceExpert

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    SUITES
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)


@pytest.fixture(scope="module")
def env():
    e = GoalEnv(APPLE, cameras=(), max_steps=400)
    yield e
    e.close()


def test_the_expert_puts_the_apple_on_the_plate(env):
    obs, info = env.reset(seed=0)
    assert info["instruction"] == "Pick the apple on the table and place it on the plate"
    assert not env.checker.holds(env.data)
    expert = PickPlaceExpert(env)
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
    assert terminated and reward == 1.0 and info["is_success"]
    assert expert.failure is None and expert.side == "left"
    apple, plate = env.data.body("apple_1").xpos, env.data.body("plate_1").xpos
    assert np.linalg.norm(apple[:2] - plate[:2]) < 0.07 and apple[2] > plate[2]


def test_holding_still_ends_at_the_step_limit(env):
    env.max_steps = 12
    try:
        obs, _ = env.reset(seed=1)
        hold = obs["state"].copy()
        for _ in range(12):
            _, reward, terminated, truncated, _ = env.step(hold)
        assert (reward, terminated, truncated) == (0.0, False, True)
    finally:
        env.max_steps = 400


def test_bad_actions_are_refused(env):
    env.reset(seed=0)
    with pytest.raises(EnvError, match=r"action has shape \(3,\); expected \(14,\)"):
        env.step(np.zeros(3))
    with pytest.raises(EnvError, match=r"action has non-finite values at indices \[2\]"):
        env.step(np.array([0.0, 0.0, np.nan] + [0.0] * 11))


def test_choose_side_takes_the_arm_that_reaches_both_ends():
    assert choose_side(np.array([0.2, 0.1]), np.array([0.1, -0.1])) == "right"
    assert choose_side(np.array([-0.2, 0.1]), np.array([-0.05, 0.2])) == "left"


def test_a_cost_file_reports_its_cost_and_warnings_keep_positions():
    path = (
        SUITES / "vla_arena/safety_hazard_avoidance/level_0"
        / "pick_up_the_lemon_and_place_it_in_the_plate_with_the_candle_lit.bddl"
    )  # fmt: skip
    env = GoalEnv(path, cameras=(), max_steps=3)
    try:
        env.reset(seed=0)
        lemon = env.data.body("lemon_1").xpos.copy()
        candle = env.data.body("candle_1").xpos.copy()
        hold = env.state()
        costs = [env.step(hold)[4]["cost"] for _ in range(3)]
        near = np.linalg.norm(lemon - candle) < 0.12
        assert costs == ([1.0] * 3 if near else [0.0] * 3)
        assert env.end_cost() == 0.0  # the candle stands
    finally:
        env.close()
    stove = SUITES / "vla_arena/safety_hazard_avoidance/level_0"
    kiwi = next(stove.glob("pick_up_the_kiwi*.bddl"))
    warn = GoalEnv(kiwi, cameras=()).warnings
    assert any(w.startswith(f"{kiwi}:") and "(:init Turnon ...) not applied" in w for w in warn)
    assert not any("the :cost is not evaluated" in w for w in warn)  # the stove is a body


def test_the_goal_task_gymnasium_id_builds_a_goal_env():
    import gymnasium

    import rsb_mj  # noqa: F401  (registers the ids)

    env = gymnasium.make("rsb_mj/Goal-Task-v0", task=str(APPLE), cameras=())
    try:
        obs, info = env.reset(seed=2)
        assert obs["state"].shape == (14,) and info["instruction"].startswith("Pick the apple")
        assert type(env.unwrapped).__name__ == "RsbEnv"  # one environment class
    finally:
        env.close()


# ---- perturbation levels ------------------------------------------------------------------


def test_visual_and_language_levels_are_drawn_from_the_seed_and_leave_physics_alone():
    """V4/W2 on the apple file: the same seed gives the same pixels, words and drawn
    parameters; another seed other pixels; the layout is the unperturbed one; V3 moves the
    head camera by a non-zero fraction of its draw (goal objects outside the compiled view do
    not pin it to 0)."""
    kw = {"cameras": ("head",), "width": 64, "height": 48}
    plain = GoalEnv(APPLE, **kw)
    env = GoalEnv(APPLE, **kw, visual_level=4, language_level=2)
    try:
        obs0, info0 = plain.reset(seed=0)
        assert info0["perturbation"]["visual_level"] == 0
        assert info0["perturbation"]["light"] is None
        a, info = env.reset(seed=0)
        first = a["images"]["head"].copy()
        assert env.layout == plain.layout
        np.testing.assert_array_equal(a["state"], obs0["state"])
        assert np.abs(first.astype(int) - obs0["images"]["head"]).mean() > 10
        record = info["perturbation"]
        assert (record["visual_level"], record["language_level"]) == (4, 2)
        assert record["camera"] == {"offset_m": {"head": [-0.0175, 0.0776, -0.0687]}, "scale": 1.0}
        assert record["noise"]["gaussian_var"] == 0.085
        assert info["instruction"] == (
            "Pick the apple on the piece of furniture and move it on the plate"
        )
        assert record["language"]["substitutions"] == [
            {"word": "table", "substitute": "piece of furniture", "offset": 22},
            {"word": "place", "substitute": "move", "offset": 32},
        ]
        other, _ = env.reset(seed=2)
        assert not np.array_equal(other["images"]["head"], first)
        again, info2 = env.reset(seed=0)
        np.testing.assert_array_equal(again["images"]["head"], first)
        assert info2["perturbation"] == record
    finally:
        env.close()
        plain.close()


def test_a_level_outside_0_to_4_is_refused():
    with pytest.raises(EnvError, match="language_level 7: valid choices: 0, 1, 2, 3, 4"):
        GoalEnv(APPLE, cameras=(), language_level=7)
    with pytest.raises(EnvError, match="visual_level 5: valid choices: 0, 1, 2, 3, 4"):
        GoalEnv(APPLE, cameras=(), visual_level=5)


def test_an_ablated_episode_gives_its_instruction_and_keeps_the_scene():
    """The blank and tokens ablations reach the policy's instruction (at a language level
    too, which finds no word to substitute in a blank one); the layout is the seed's."""
    import dataclasses

    from rsb_mj.episodes.episode import Episode

    env = GoalEnv(APPLE, cameras=(), language_level=1)
    try:
        _, info = env.reset(seed=3)
        layout = dict(env.layout)
        seed = Episode.seeded(str(APPLE), 3)
        blank = dataclasses.replace(seed, instruction="", extra={"variant": "blank"})
        _, info = env.reset(options={"episode": blank})
        assert info["instruction"] == "" and env.layout == layout
        words = dataclasses.replace(blank, instruction="tray bowl up", extra={"variant": "tokens"})
        _, info = env.reset(options={"episode": words})
        assert info["instruction"] == "tray bowl up" and env.layout == layout
    finally:
        env.close()
