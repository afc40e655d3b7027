"""Suite registry: names, lookups and the error for an unknown suite."""

import pytest

from rsb_mj.errors import RsbError
from rsb_mj.suites import SUITES, get_suite


def test_six_suites_with_their_sources_and_choice_counts():
    assert [(s.name, s.source, s.choices) for s in SUITES.values()] == [
        ("RSB-Math-4", "arithmetic", 4),
        ("RSB-Math-10", "arithmetic", 10),
        ("RSB-HardMath-4", "gsm8k", 4),
        ("RSB-HardMath-10", "gsm8k", 10),
        ("RSB-General-4", "mmlu_pro", 4),
        ("RSB-General-10", "mmlu_pro", 10),
    ]


def test_lookup_accepts_gym_ids_and_any_case():
    assert get_suite("rsb_mj/RSB-Math-10-v0").name == "RSB-Math-10"
    assert get_suite("rsb-hardmath-4").name == "RSB-HardMath-4"
    assert get_suite("RSB-General-4").env_id == "rsb_mj/RSB-General-4-v0"


def test_unknown_suite_lists_the_valid_ones():
    with pytest.raises(
        RsbError, match=r"unknown suite 'RSB-Algebra-4'; valid choices: RSB-Math-4, "
    ):
        get_suite("RSB-Algebra-4")


def test_every_suite_task_file_ships():
    for suite in SUITES.values():
        assert suite.path.is_file(), suite.path


def test_every_suite_has_l1_and_l2_levels_on_their_own_task_files():
    from rsb_mj.suites import ALL_SUITES, LEVEL_SUITES, expand_suites, suites_at

    assert list(LEVEL_SUITES) == [f"{s}-L{k}" for k in (1, 2) for s in SUITES]
    level = get_suite("rsb-math-10-l1")
    assert (level.name, level.task_file, level.source, level.choices) == (
        "RSB-Math-10-L1",
        "rsb_math_10_l1.bddl",
        "arithmetic",
        10,
    )
    assert (level.level, level.base, level.base_name) == (1, "RSB-Math-10", "RSB-Math-10")
    assert level.env_id == "rsb_mj/RSB-Math-10-L1-v0"
    assert get_suite("RSB-Math-10").base_name == "RSB-Math-10"
    assert list(ALL_SUITES) == [*SUITES, *LEVEL_SUITES]
    assert suites_at(1) == list(LEVEL_SUITES)[:6]
    assert expand_suites(["all", "ALL-L2", "RSB-Math-4"]) == [
        *SUITES,
        *list(LEVEL_SUITES)[6:],
        "RSB-Math-4",
    ]
    for suite in LEVEL_SUITES.values():
        assert suite.path.is_file(), suite.path


def test_level_task_files_are_what_the_tool_writes():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(root / "tools" / "level_tasks.py"), "--check"],
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "")
