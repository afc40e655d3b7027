"""Task-file visual blocks :image_settings, :random_color, :camera, :noise (settings.py) and
their effect in the renderer at visual level 0."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.errors import TaskError
from rsb_mj.lang import load_task, parse_file
from rsb_mj.lang.settings import read_settings
from rsb_mj.perturb.draws import kelvin_rgb
from rsb_mj.resources import tasks_dir

BASE = (tasks_dir() / "rsb_math_4.bddl").read_text(encoding="utf-8")


def task_with(tmp_path: Path, blocks: str) -> Path:
    """rsb_math_4.bddl with ``blocks`` inserted before its ``(:goal``, at line 2 of them."""
    assert BASE.count("(:goal") == 1
    path = tmp_path / "t.bddl"
    path.write_text(BASE.replace("(:goal", blocks + "\n  (:goal"), encoding="utf-8")
    return path


def goal_line() -> int:
    return BASE[: BASE.index("(:goal")].count("\n") + 1


BLOCKS = """(:image_settings brightness 0.5 contrast 0.25 temperature 4000)
  (:camera head 0.02 -0.03 0.01 left_wrist)
  (:noise gaussian 0.1 0.0025 salt_pepper 0.01)
  (:random_color true)"""


def test_blocks_are_read_with_their_values(tmp_path):
    settings = read_settings(load_task(task_with(tmp_path, BLOCKS)))
    assert settings.blocks == {
        "image_settings": {"brightness": 0.5, "contrast": 0.25, "temperature": 4000.0},
        "camera": {"head": (0.02, -0.03, 0.01), "left_wrist": (0.0, 0.0, 0.0)},
        "noise": {"gaussian": (0.1, 0.0025), "salt_pepper": 0.01},
        "random_color": {"enabled": True},
    }
    assert read_settings(load_task(tasks_dir() / "rsb_math_4.bddl")).blocks == {}


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("(:noise blur 0.1)", r"\(:noise\) has no kind 'blur'; valid choices: gaussian, "
         r"salt_pepper"),
        ("(:noise gaussian 0 2)", r"gaussian takes a number in \[0, 1\]"),
        ("(:noise gaussian 0.1)", r"gaussian takes MEAN VAR"),
        ("(:image_settings temperature 500)", r"temperature takes a number in \[2000, 10000\]"),
        ("(:image_settings hue 0.2)", r"\(:image_settings\) has no key 'hue'; valid choices: "
         r"brightness, contrast, saturation, temperature"),
        ("(:camera agentview 0 0 0)", r"\(:camera\) has no camera 'agentview'; valid "
         r"choices: head, left_wrist, right_wrist"),
        ("(:camera head 0.1 0.2)", r"head takes dx dy dz \[m\]"),
        ("(:random_color maybe)", r"\(:random_color\) takes true or false"),
    ],
)  # fmt: skip
def test_bad_blocks_name_file_line_column(tmp_path, block, message):
    path = task_with(tmp_path, block)
    where = rf"^{re.escape(str(path))}:{goal_line()}:\d+: "
    with pytest.raises(TaskError, match=where + message):
        read_settings(parse_file(path))
    # The linter reports the reader's own message (RSB509), so load_task stops first.
    with pytest.raises(TaskError, match=where + "RSB509 bad-visual-setting: " + message):
        load_task(path)


def test_blocks_act_at_visual_level_zero(tmp_path):
    plain = RsbEnv(tasks_dir() / "rsb_math_4.bddl", width=64, height=48)
    env = RsbEnv(task_with(tmp_path, BLOCKS), width=64, height=48)
    try:
        a, _ = plain.reset(seed=4)
        b, info = env.reset(seed=4)
        p = info["sim"]["perturbation"]
        assert p["visual_level"] == 0
        tint = kelvin_rgb(4000.0)
        np.testing.assert_allclose(
            env.model.light_diffuse, plain.model.light_diffuse * (1.5 * 1.25 * tint), rtol=1e-6
        )
        np.testing.assert_allclose(
            env.model.light_ambient, plain.model.light_ambient * (1.5 * 0.75 * tint), rtol=1e-6
        )
        np.testing.assert_array_equal(env.model.light_dir, plain.model.light_dir)  # no tilt
        np.testing.assert_allclose(
            env.model.camera("head").pos - plain.model.camera("head").pos, [0.02, -0.03, 0.01]
        )
        np.testing.assert_array_equal(
            env.model.camera("left_wrist").pos, plain.model.camera("left_wrist").pos
        )
        table = env.model.geom("table_top").rgba[:3]
        assert np.all((table >= 0.2) & (table <= 0.8)) and np.ptp(table) >= 0.15
        assert p["noise"] == {
            "gaussian_mean": 0.1, "gaussian_var": 0.0025, "gaussian_sigma": 0.05,
            "salt_pepper": 0.01,
        }  # fmt: skip
        assert p["camera"] == {
            "offset_m": {"head": [0.02, -0.03, 0.01], "left_wrist": [0.0, 0.0, 0.0]}
        }
        assert p["light"]["temperature_k"] == 4000.0 and p["light"]["brightness"] == 0.5
        assert a["images"]["head"].tobytes() != b["images"]["head"].tobytes()
    finally:
        plain.close()
        env.close()
