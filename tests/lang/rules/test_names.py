# ruff: noqa: E501
"""RSB2xx (:mod:`rsb_mj.lang.rules.names`): one failing fixture per rule, with the exact
position and message (tests/lang/rule_cases.py), the fix RSB201 suggests, and what LIBERO's and
VLA-Arena's loaders accept; the predicate registries themselves are tested in
tests/lang/test_predicates.py."""

import pytest

from rsb_mj.lang.linter import lint_file, lint_text
from rsb_mj.resources import tasks_dir

from ..lang_samples import BASE, LIBERO
from ..rule_cases import FIELDS, expected, first_finding, lint_edit

CASES = [
    (
        "RSB201",
        BASE,
        "(:goal (And",
        "(:goall (And",
        26,
        3,
        "unknown block ':goall'; did you mean ':goal'? valid blocks: :camera, :candidates, :cost, :domain, :fixtures, :goal, :grasp, :image_settings, :init, :instruction, :language, :layout, :moving_objects, :noise, :obj_of_interest, :objects, :options, :question, :random_color, :regions, :requirements, :scene_properties",
    ),
    (
        "RSB202",
        BASE,
        "  (:candidates",
        "  (:objects block_e - letter_block)\n  (:candidates",
        18,
        3,
        "block ':objects' appears again (first at line 16); write it once",
    ),
    (
        "RSB211",
        BASE,
        "(:domain rsb)",
        "(:domain rbs)",
        3,
        3,
        "unknown domain 'rbs'; valid choices: robosuite, rsb",
    ),
    (
        "RSB203",
        BASE,
        "- letter_block",
        "- leter_block",
        17,
        5,
        "object 'block_a' has unknown category 'leter_block'; did you mean 'letter_block'? valid "
        "choices: akita_black_bowl, alphabet_soup, answer_plate, apple, bagel, banana, basket, "
        "bbq_sauce, bell_pepper, billiard_balls, black_book, blue_mug, ... (112 in all)",
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
    (
        "RSB204",
        BASE,
        "(On block_b",
        "(Onn block_b",
        22,
        5,
        "unknown predicate 'Onn'; did you mean 'On'? valid choices: Grasped, In, On, Released",
    ),
    (
        "RSB204",
        LIBERO,
        "(Fall plate_1)",
        "(Grasped plate_1)",
        22,
        15,
        "unknown predicate 'Grasped'; it is rsb's, not LIBERO or VLA-Arena's; valid choices: CheckDistance, CheckForce, CheckGripperContact, CheckGripperContactPart, CheckGripperDistance, CheckGripperDistancePart, Close, Collide, Fall, False, In, InContact, InContactPart, NotIn, NotOn, On, Open, PrintJointState, Stack, Temporal, True, Turnoff, Turnon, Up",
    ),
    (
        "RSB213",
        BASE,
        "(In ?answer table_answer_zone)",
        "(InContact ?answer table)",
        26,
        15,
        "the rsb simulator cannot score 'InContact' (LIBERO, VLA-Arena) in :goal; valid choices there: Grasped, In, On, Released",
    ),
    (
        "RSB213",
        BASE,
        "(On block_b table_candidates)",
        "(NotIn block_b table_candidates)",
        22,
        5,
        "the rsb simulator cannot place objects with 'NotIn' (VLA-Arena) in :init; valid choices there: On",
    ),
    (
        "RSB205",
        BASE,
        "(In ?answer table_answer_zone)",
        "(In ?answer)",
        26,
        15,
        "'In' takes 2 arguments (object, place), got 1",
    ),
    (
        "RSB206",
        BASE,
        "(On block_b table_candidates)",
        "(On table_candidates block_b)",
        22,
        9,
        "argument 1 of 'On' must be an object, got region 'table_candidates'",
    ),
    (
        "RSB207",
        BASE,
        "(In ?answer table_answer_zone)",
        "(In ?answer table_answer_zon)",
        26,
        27,
        "'table_answer_zon' in :goal is not a declared object, fixture or region; did you mean 'table_answer_zone'?",
    ),
    (
        "RSB212",
        BASE,
        "(Released ?answer)",
        "(Released ?anser)",
        26,
        56,
        "variable '?anser' is not bound; valid choices: ?answer, or a typed variable such as '?c - candidate'",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


def test_unknown_block_suggests_the_close_keyword_as_its_fix():
    diagnostics = lint_edit(BASE, "(:goal (And", "(:goall (And")
    assert [d.fix for d in diagnostics if d.code == "RSB201"] == [":goal"]


def test_what_libero_and_vla_arena_loaders_accept_is_a_warning_in_their_domains():
    """Shipped LIBERO / VLA-Arena files their own loaders run: a region on an undeclared,
    unused target (RSB209), a region defined twice (RSB208) and an undeclared
    :obj_of_interest name (RSB207) are warnings there, and the files build."""

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

    path = tasks_dir() / "libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    text = path.read_text(encoding="utf-8").replace(
        "(On plate_1 main_table_plate_region)", "(On plate_1 bowl_drainer_1_right_region)"
    )
    assert "bowl_drainer_1_right_region" in text
    errors = [d for d in lint_text(text, str(path))[1] if d.code == "RSB209"]
    assert [d.severity for d in errors] == ["error", "warning"]


def test_an_unknown_object_category_suggests_an_object_never_a_fixture():
    """``wine_glass`` is closest to ``wine_rack`` by spelling, a fixture: an object's fix is
    an object category, a fixture's a fixture category."""
    found = lint_edit(LIBERO, "plate_1 - plate", "plate_1 - wine_glass")
    (d,) = [d for d in found if d.code == "RSB203"]
    assert (d.span.line, d.span.column, d.fix) == (14, 31, "simple_gas")
    assert d.message.startswith(
        "object 'plate_1' has unknown category 'wine_glass'; did you mean 'simple_gas'? "
        "valid choices: "
    )
    fixture = lint_edit(LIBERO, "main_table - table)", "main_table - table rack_1 - wine_glass)")
    assert [d.fix for d in fixture if d.code == "RSB203"] == ["wine_rack"]
    question = lint_edit(
        BASE, "block_a block_b block_c block_d - letter_block", "glass - wine_glass"
    )
    # rsb's object categories hold the stand-ins of LIBERO's fixtures too: none is offered
    assert [d.fix for d in question if d.code == "RSB203"] == [None]


def test_an_undeclared_region_of_a_declared_object_says_how_to_declare_it():
    text = LIBERO.replace("plate_1 - plate)", "plate_1 - plate basket_1 - basket)").replace(
        "(On bowl_1 plate_1)", "(In bowl_1 basket_1_contain_region)"
    )
    found = [d for d in lint_text(text, "put_the_bowl_in_the_basket.bddl")[1] if d.code == "RSB207"]
    assert [(d.span.line, d.span.column, d.message) for d in found] == [
        (
            21,
            26,
            "'basket_1_contain_region' in :goal is not a declared object, fixture or region; "
            "to use the 'contain_region' of 'basket_1', declare it in :regions: "
            "(contain_region (:target basket_1))",
        )
    ]
