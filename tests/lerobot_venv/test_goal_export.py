"""lerobot's own ``LeRobotDataset`` loads ``rsb export-lerobot`` of goal-task demonstrations,
alone and beside a question task's (``rsb demos FILE.bddl`` and ``rsb demos RSB-Math-4`` in
one folder), and a tier-B file's with its fixture joints."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

from lerobot.datasets.lerobot_dataset import LeRobotDataset

from rsb_mj.cli import main
from rsb_mj.datasets.demo_file import goal_demo_filename, read_demo

REPO = Path(__file__).resolve().parents[2]
APPLE = (
    REPO / "tests/data/bddl_suites/vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)  # fmt: skip
DRAWER = (
    REPO / "tests/data/bddl_suites/libero/libero_goal/open_the_middle_drawer_of_the_cabinet.bddl"
)
LANGUAGE = "Pick the apple on the table and place it on the plate"
SMALL = ["--width", "64", "--height", "48", "--no-progress"]


def test_lerobot_loads_goal_demos_alone_and_mixed_with_question_demos(tmp_path):
    demos = tmp_path / "demos"
    assert main(["demos", str(APPLE), "-n", "1", "-o", str(demos), *SMALL]) == 0
    assert main(["export-lerobot", str(demos), "-o", str(tmp_path / "goal")]) == 0
    goal = LeRobotDataset("rsb/goal", root=tmp_path / "goal")
    demo = read_demo(demos / goal_demo_filename(APPLE, 0), images=False)
    assert (goal.num_episodes, goal.num_frames) == (1, len(demo.actions))
    first = goal[0]
    assert first["task"] == LANGUAGE
    assert tuple(first["observation.images.cam_high"].shape) == (3, 48, 64)
    assert tuple(first["observation.state"].shape) == (14,)

    assert main(["demos", "RSB-Math-4", "-n", "1", "-o", str(demos), *SMALL]) == 0
    question = read_demo(demos / "episode_000000.hdf5", images=False)
    assert main(["export-lerobot", str(demos), "-o", str(tmp_path / "mixed")]) == 0
    mixed = LeRobotDataset("rsb/mixed", root=tmp_path / "mixed")
    assert mixed.num_episodes == 2
    assert mixed.num_frames == len(question.actions) + len(demo.actions)
    # files in name order: the question's episode_000000 first, then the goal episode
    assert mixed[0]["task"] == question.attrs["instruction"]
    last = mixed[mixed.num_frames - 1]
    assert last["task"] == LANGUAGE and int(last["episode_index"]) == 1
    np.testing.assert_allclose(
        mixed[len(question.actions)]["observation.state"].numpy(),
        goal[0]["observation.state"].numpy(),
    )


def test_lerobot_loads_a_tier_b_export_with_its_fixture_joints(tmp_path):
    """``rsb demos`` of LIBERO-goal's "open the middle drawer" (tier B: the cabinet's three
    drawers and the stove's knob), exported: LeRobotDataset reads the joints as
    ``observation.environment_state``, named in the HDF5's order, every frame's value the
    HDF5's (float32), and lerobot's own policy features make it the ENV input."""
    from lerobot.datasets.utils import dataset_to_policy_features

    demos = tmp_path / "demos"
    assert main(["demos", str(DRAWER), "-n", "1", "-o", str(demos), *SMALL]) == 0
    assert main(["export-lerobot", str(demos), "-o", str(tmp_path / "ds")]) == 0
    demo = read_demo(demos / goal_demo_filename(DRAWER, 0), images=False)
    names = json.loads(demo.attrs["fixture_joints"])
    assert names == ["wooden_cabinet_1/top_level", "wooden_cabinet_1/middle_level",
                     "wooden_cabinet_1/bottom_level", "flat_stove_1/button"]  # fmt: skip
    ds = LeRobotDataset("rsb/tier_b", root=tmp_path / "ds")
    feature = ds.meta.features["observation.environment_state"]
    assert (feature["dtype"], feature["shape"], feature["names"]) == ("float32", (4,), names)
    assert ds.meta.info["rsb_environment_state"] == {"holds": "fixture_joints", "names": names}
    assert (
        dataset_to_policy_features(ds.meta.features)["observation.environment_state"].type.name
        == "ENV"
    )
    n = len(demo.actions)
    assert (ds.num_episodes, ds.num_frames) == (1, n)
    loaded = np.stack([ds[i]["observation.environment_state"].numpy() for i in range(n)])
    np.testing.assert_array_equal(loaded, demo.fixture_joints.astype(np.float32))
    assert loaded[-1, 1] < -0.14  # the middle drawer pulled out
    assert tuple(ds[0]["observation.images.cam_high"].shape) == (3, 48, 64)
