"""The gymnasium ids are registered whenever gymnasium is imported, and only then."""

import subprocess
import sys

import pytest

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
    assert out.strip() == (
        "['rsb_mj/RSB-General-10-v0', 'rsb_mj/RSB-General-4-v0', 'rsb_mj/RSB-HardMath-10-v0', "
        "'rsb_mj/RSB-HardMath-4-v0', 'rsb_mj/RSB-Math-10-v0', 'rsb_mj/RSB-Math-4-v0', "
        "'rsb_mj/RSB-Task-v0']"
    )
