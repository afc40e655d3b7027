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
