"""Act2Answer on the real scene: plates show the episode's pictures, the expert places the
cube on the plate it is told, the record carries item, layout and side."""

import numpy as np
import pytest

from rsb_mj.env import RsbEnv
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.policies.spec import make_policy
from rsb_mj.scene.legibility import project
from rsb_mj.suites import get_suite
from rsb_mj.tables.paired import build_rows, select_items


@pytest.fixture(scope="module")
def color_env():
    suite = get_suite("A2A-Color")
    env = RsbEnv(suite.path, suite=suite.name, cameras=("head",))
    items, _ = select_items(suite.name, "eval", env.problem, None, None)
    yield env, build_rows(suite.name, "eval", items[:2], env.problem)
    env.close()


def _centre_pixel(env, image, plate):
    u = env.unwrapped
    x, y = project(u.model, u.data, "head", u.data.xpos[u.model.body(plate).id], 320, 240)
    return image[int(y), int(x)].astype(int)


def test_plates_show_the_episode_pictures_in_both_layouts(color_env):
    env, rows = color_env
    original, swapped = rows[0], rows[1]
    assert original.extra["plates"] == {"A": "color:orange:hexagon", "B": "color:pink:hexagon"}
    assert (original.extra["layout"], swapped.extra["layout"]) == ("original", "swapped")
    for episode in (original, swapped):
        obs, info = env.reset(options={"episode": episode})
        image = obs["images"]["head"]
        orange = _centre_pixel(env, image, episode.mapping["A"])
        pink = _centre_pixel(env, image, episode.mapping["B"])
        assert orange[0] > 150 and orange[2] < 90, orange  # orange: red high, blue low
        assert pink[2] > 110 and pink[0] > 150, pink  # pink: red and blue high
        assert info["candidates"] == ("plate_a", "plate_b")
        assert info["signals"]["on"].shape == (1, 1, 2)  # the cube over the two plates
        assert info["signals"]["pinch"].shape == (1, 1, 2) and "in_zone" not in info["signals"]
    a = env.unwrapped.data.xpos[env.unwrapped.model.body("plate_a").id][0]
    assert a > 0  # swapped: plate_a stands right


@pytest.mark.parametrize("row", [0, 1])
def test_the_expert_puts_the_cube_on_the_correct_plate(color_env, row):
    env, rows = color_env
    episode = rows[row]
    record = Rollout(env, make_policy("expert"), episode, env.problem, max_steps=400).run()
    assert (record.grasped, record.success, record.choice) == (True, True, episode.target)
    assert (record.item, record.layout, record.category) == (
        "a2a-color-0000",
        episode.extra["layout"],
        "COLOR",
    )
    left = episode.layout[episode.target].x < 0
    assert record.chosen_side == ("left" if left else "right")
    assert record.termination == "success" and record.steps < 200


def test_placing_on_the_other_plate_fails_with_that_choice(color_env):
    from rsb_mj.expert import PickPlaceExpert

    env, rows = color_env
    episode = rows[0]
    wrong = next(p for p in episode.mapping.values() if p != episode.target)
    obs, _ = env.reset(options={"episode": episode})
    expert = PickPlaceExpert(env, wrong)
    for _ in range(400):
        obs, _, terminated, _, info = env.step(expert.act(obs))
        if terminated:
            break
    out = env.unwrapped.scorer.outcome
    assert (out.grasped, out.choice, out.correct_choice, out.success) == (True, wrong, False, False)
    assert info["is_success"] is False
    assert np.asarray(info["signals"]["on"])[-1, 0].tolist() == [
        p == wrong for p in ("plate_a", "plate_b")
    ]


@pytest.mark.slow  # check_env resets and steps many times (~25 s on a free core)
def test_the_gymnasium_id_passes_check_env_and_draws_free_episodes():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("rsb_mj/A2A-Time-v0", width=160, height=120, render_mode="rgb_array")
    check_env(env.unwrapped)
    _, info = env.reset(seed=0)
    assert info["instruction"].startswith(("pick up the cube", "set the cube", "the cube belongs"))
    assert "clock showing" in info["instruction"]  # an eval item, unseen templates
    assert env.render().shape == (120, 160, 3)
    env.close()
