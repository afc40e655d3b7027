# ruff: noqa: E501
"""RSB203 and RSB208-210 (:mod:`rsb_mj.lang.rules.names_declarations`): one failing fixture per
rule, with the exact position and message (tests/lang/rule_cases.py)."""

import pytest

from ..lang_samples import BASE
from ..rule_cases import FIELDS, expected, first_finding

CASES = [
    (
        "RSB203",
        BASE,
        "- letter_block",
        "- leter_block",
        17,
        5,
        "object 'block_a' has unknown category 'leter_block'; did you mean 'letter_block'? valid "
        "choices: answer_plate, apple, banana, bottle, bowl, bread, can, cereal, hammer, lemon, "
        "letter_block, milk, ... (24 in all)",
    ),
    (
        "RSB208",
        BASE,
        "block_a block_b block_c block_d - letter_block",
        "block_a block_b block_c block_d block_a - letter_block",
        17,
        37,
        "'block_a' is declared again (first at line 17)",
    ),
    (
        "RSB209",
        BASE,
        "(:target table)\n      (:ranges ((-0.25",
        "(:target tabel)\n      (:ranges ((-0.25",
        7,
        5,
        "region 'candidates' targets 'tabel', which is not declared; did you mean 'table'? valid targets: block_a, block_b, block_c, block_d, table",
    ),
    (
        "RSB210",
        BASE,
        "    table - table)",
        "    table - table\n    lamp)",
        16,
        5,
        "'lamp' has no category; write 'lamp - CATEGORY'",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


def test_what_libero_and_vla_arena_loaders_accept_is_a_warning_in_their_domains():
    """Shipped LIBERO / VLA-Arena files their own loaders run: a region on an undeclared,
    unused target (RSB209), a region defined twice (RSB208) and an undeclared
    :obj_of_interest name (RSB207) are warnings there, and the files build."""
    from rsb_mj.lang.linter import lint_file
    from rsb_mj.resources import tasks_dir

    cases = {
        "libero/libero_goal/put_the_bowl_on_the_plate.bddl": ("RSB209", 84, 7),
        "vla_arena/safety_hazard_avoidance/level_0/"
        "pick_up_the_kiwi_and_place_it_on_the_white_bowl_with_the_stove_turned_on.bddl": (
            "RSB208",
            82,
            7,
        ),
        "vla_arena/generalization_task_workflows/level_2/"
        "pick_up_the_mug_and_place_it_on_the_bowl.bddl": ("RSB207", 92, 3),
    }
    for rel, (code, line, col) in cases.items():
        _, diagnostics = lint_file(tasks_dir() / rel)
        hits = [d for d in diagnostics if d.code == code]
        assert hits and {d.severity for d in hits} == {"warning"}, rel
        assert (hits[0].span.line, hits[0].span.column) == (line, col), rel
        assert "LIBERO's and VLA-Arena's loaders accept this" in hits[0].message
        assert not [d for d in diagnostics if d.severity == "error"], rel


def test_an_undeclared_region_target_stays_an_error_when_the_region_is_used():
    from rsb_mj.lang.linter import lint_text
    from rsb_mj.resources import tasks_dir

    path = tasks_dir() / "libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    text = path.read_text(encoding="utf-8").replace(
        "(On plate_1 main_table_plate_region)", "(On plate_1 bowl_drainer_1_right_region)"
    )
    assert "bowl_drainer_1_right_region" in text
    errors = [d for d in lint_text(text, str(path))[1] if d.code == "RSB209"]
    assert [d.severity for d in errors] == ["error", "warning"]
