"""lerobot's own ``LeRobotDataset`` loads ``rsb export-lerobot`` of goal-task demonstrations,
alone and beside a question task's (``rsb demos FILE.bddl`` and ``rsb demos RSB-Math-4`` in
one folder)."""

from __future__ import annotations

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
