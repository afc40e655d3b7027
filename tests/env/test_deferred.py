"""The gymnasium ids are registered whenever gymnasium is imported, and only then."""

import subprocess
import sys

import pytest

from rsb_mj.suites import A2A_SUITES, ALL_SUITES, GOAL_SUITES

CASES = {
    "rsb_mj first": "import rsb_mj, sys\n"
    "assert 'gymnasium' not in sys.modules\n"
    "import gymnasium as gym",
    "gymnasium first": "import gymnasium as gym, rsb_mj",
    "registration module first": "import rsb_mj.env.registration\nimport gymnasium as gym",
    "the env first": "from rsb_mj.env import RsbEnv\nimport gymnasium as gym",
}


@pytest.mark.parametrize("order", sorted(CASES))
def test_every_import_order_registers_the_ids(order):
    code = CASES[order] + "\nprint(sorted(k for k in gym.registry if k.startswith('rsb_mj/')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    ids = out.strip().removeprefix("[").removesuffix("]").replace("'", "").split(", ")
    # The six suites, their L1 and L2 variants, the twelve Act2Answer suites, the task id,
    # the goal-task id and one id per shipped goal task file.
    goal = [*GOAL_SUITES["libero"].env_ids, *GOAL_SUITES["vla-arena"].env_ids]
    assert len(ids) == 6 + 12 + 12 + 1 + 1 + len(goal)
    assert ids == sorted(
        [f"rsb_mj/{s}-v0" for s in (*ALL_SUITES, *A2A_SUITES)]
        + ["rsb_mj/RSB-Task-v0", "rsb_mj/Goal-Task-v0", *goal]
    )
    assert ids[:2] == ["rsb_mj/A2A-Biological-v0", "rsb_mj/A2A-Color-v0"]
    assert "rsb_mj/RSB-Math-4-L2-v0" in ids and "rsb_mj/RSB-Task-v0" in ids
