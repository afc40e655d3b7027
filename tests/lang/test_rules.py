# ruff: noqa: E501
"""One failing fixture per lint rule: the exact code, position and message.

Each case edits a valid task (``BASE``, ``BASE_10``, ``LIBERO`` or ``A2A_BASE`` in
lang_samples.py) in one place and checks the first finding of the rule (tests/lang/rule_cases.py).
"""

from pathlib import Path

import pytest

from rsb_mj.lang import RULES, lint_text
from rsb_mj.lang.categories import footprint_radius

from .lang_samples import A2A_BASE, BASE, BASE_10, LIBERO
from .rule_cases import FIELDS, expected, first_finding, lint_edit, path_of
from .rules.test_names import CASES as NAMES_CASES
from .rules.test_relations import CASES as GOAL_RELATIONS_CASES
from .rules.test_runtime_goal import CASES as RUNTIME_GOAL_CASES
from .rules.test_semantics import CASES as SEMANTICS_CASES

CASES = [
    (
        "RSB301",
        BASE,
        "(-0.25 -0.1 0.25 0.02)",
        "(0.25 -0.1 -0.25 0.02)",
        9,
        17,
        "range (0.25 -0.1 -0.25 0.02) of region 'candidates' is inverted: x_min 0.25 > x_max -0.25; the order is (x_min y_min x_max y_max)",
    ),
    (
        "RSB302",
        BASE,
        "(-0.25 -0.1 0.25 0.02)",
        "(-0.7 -0.1 0.25 0.02)",
        9,
        17,
        "range (-0.7 -0.1 0.25 0.02) of region 'candidates' leaves the table top (x in [-0.61, 0.61], y in [-0.38, 0.38] m): x_min -0.7 < -0.61",
    ),
    (
        "RSB303",
        BASE,
        "(-0.25 -0.1 0.25 0.02)",
        "(-0.25 -0.1 0.25 0.15)",
        9,
        17,
        "candidates in 'table_candidates' (-0.25 -0.1 0.25 0.15) can reach into the answer zone 'table_answer_zone' (-0.06 0.1 0.06 0.22) (footprint radius "
        + f"{footprint_radius('letter_block'):g} m)",
    ),
    (
        "RSB304",
        BASE_10,
        "(-0.28 -0.14 0.28 0.05)",
        "(-0.05 -0.05 0.05 0.0)",
        7,
        5,
        "region 'table_candidates' cannot hold its 10 candidates: with centers at least 0.07 m apart at most 4 fit",
    ),
    (
        "RSB305",
        BASE_10,
        "(-0.28 -0.14 0.28 0.05)",
        "(-0.12 -0.1 0.12 0.0)",
        7,
        5,
        "region 'table_candidates' is crowded: 10 candidates 0.07 m apart cover 73% of it (more than 45%); random placement will often fail",
    ),
    (
        "RSB306",
        BASE,
        "      (:target table)\n      (:ranges ((-0.25 -0.1 0.25 0.02))))",
        "      (:target table))",
        20,
        5,
        "'table_candidates' has no (:ranges ...) to place objects in",
    ),
    (
        "RSB307",
        BASE,
        "(:rgba (0.5 0.5 0.5 1))",
        "(:rgba (128 128 128))",
        10,
        5,
        "rgba (128 128 128) of region 'answer_zone' must be 4 values in [0, 1]",
    ),
    (
        "RSB308",
        BASE,
        "(:yaw_range (-0.3 0.3))",
        "(:yaw_range (0.3 -0.3))",
        27,
        3,
        ":yaw_range (0.3 -0.3) is inverted; write (-0.3 0.3)",
    ),
    (
        "RSB309",
        BASE,
        "(:min_spacing 0.07)",
        "(:min_spacing -0.07)",
        27,
        3,
        ":min_spacing -0.07 must be a distance in metres in (0, 1)",
    ),
    (
        "RSB310",
        BASE,
        "    (On block_c table_candidates)\n",
        "",
        20,
        3,
        "candidate 'block_c' has no (On block_c REGION) in :init",
    ),
    (
        "RSB311",
        BASE,
        "\n      (:rgba (0.5 0.5 0.5 1))",
        "",
        10,
        5,
        "answer zone 'table_answer_zone' has no (:rgba (R G B A)); it will be invisible",
    ),
    (
        "RSB312",
        BASE,
        "    (On block_d table_candidates))",
        "    (On block_d table_answer_zone))",
        24,
        5,
        "candidate 'block_d' starts in the answer zone 'table_answer_zone'",
    ),
    (
        "RSB463",
        A2A_BASE,
        "plate_a plate_b - answer_plate",
        "plate_a plate_b - letter_block",
        21,
        3,
        "candidate 'plate_a' (letter_block) cannot show a picture of its answer, which (:source a2a_color) needs; categories that show answers: answer_plate",
    ),
    (
        "RSB463",
        A2A_BASE,
        "(:source a2a_color)",
        "(:source arithmetic)",
        20,
        5,
        "candidate 'plate_a' (answer_plate) shows its option's answer, but (:source arithmetic) gives no pictures of its answers; sources that do: a2a_biological, a2a_color, a2a_counting, a2a_cultural, a2a_normative, a2a_physical, a2a_quantitative, a2a_shape, a2a_size, a2a_social, a2a_spatial, a2a_time",
    ),
    (
        "RSB450",
        BASE,
        "(:choices 4)",
        "(:choices 4) (:choices 6)",
        4,
        48,
        "a repeated property in :question; give each one once",
    ),
    (
        "RSB451",
        BASE,
        "(:source arithmetic)",
        "(:source (arithmetic (:operand 10 20)))",
        4,
        35,
        "source 'arithmetic' has no parameter :operand; did you mean :operand_range? valid "
        "choices: :operators, :operand_range, :multiplier_range",
    ),
    (
        "RSB452",
        BASE,
        "(:source arithmetic)",
        "(:source (arithmetic (:operand_range 99 10)))",
        4,
        35,
        ":operand_range (99 10) is inverted; write (10 99)",
    ),
    (
        "RSB453",
        BASE,
        "(:source arithmetic)",
        '(:source (:file "q.jsonl"))',
        4,
        3,
        "question bank 'q.jsonl' not found (looked in q.jsonl)",
    ),
    (
        "RSB470",
        BASE,
        "(:source arithmetic)",
        '(:source (:file "/etc/passwd"))',
        4,
        14,
        "question bank '/etc/passwd' resolves to /etc/passwd, outside the task file's folder "
        f"{Path.cwd()}; files a task names must lie in its folder (or allow another with "
        "--allow-root DIR)",
    ),
    (
        "RSB471",
        BASE,
        "(:templates seen)",
        '(:templates (:train seen) (:eval (:file "tests")))',
        5,
        43,
        "template file 'tests' is not a regular file (a folder)",
    ),
    (
        "RSB455",
        BASE,
        "(:templates seen)",
        "(:templates seen (:eval unseen))",
        5,
        29,
        "give one template selection for both splits, or (:train X) and (:eval X)",
    ),
    (
        "RSB456",
        BASE,
        "  (:answer_zone table_answer_zone))",
        "  )",
        10,
        5,
        "the answer zone is found by its name only; declare it: (:answer_zone table_answer_zone)",
    ),
    (
        "RSB457",
        BASE,
        "(:answer_zone table_answer_zone)",
        "(:answer_zone table_anwser_zone)",
        28,
        3,
        "answer zone 'table_anwser_zone' is not a region; did you mean 'table_answer_zone'? "
        "valid choices: table_answer_zone, table_candidates",
    ),
    (
        "RSB424",
        BASE,
        "  (:layout",
        "  (:moving_objects (cat_1 (:motion_type linear) (:motion_period 40)))\n  (:layout",
        27,
        20,
        "moving object 'cat_1' is not a declared object; valid choices: block_a, block_b, block_c, block_d",
    ),
    (
        "RSB425",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type linear) (:motion_period 40)))\n  (:layout",
        27,
        20,
        "candidate 'block_a' cannot be a moving object",
    ),
    (
        "RSB426",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type zigzag) (:motion_period 40)))\n  (:layout",
        27,
        29,
        "block_a: 'zigzag'; valid motion types: linear, circle, waypoint, parabolic",
    ),
    (
        "RSB427",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type linear) (:motion_period 40) (:motion_radius 0.2)))\n  (:layout",
        27,
        71,
        "block_a: a linear motion does not read :motion_radius; valid keys: :motion_type, :motion_period, :motion_travel_dist, :motion_direction, :motion_phase",
    ),
    (
        "RSB428",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type linear) (:motion_period 1)))\n  (:layout",
        27,
        51,
        "block_a: :motion_period of a linear motion must be >= 2 steps (one step out and one back)",
    ),
    (
        "RSB429",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type waypoint) (:motion_waypoints (((0 0 0) (1 0 0)) ((0.9 0 0) (1 0 0))))))\n  (:layout",
        27,
        20,
        "the waypoint motion of 'block_a' reaches (0.9, 0), off the table (|x| <= 0.61, |y| <= 0.38 m, table frame)",
    ),
    (
        "RSB501",
        BASE,
        "(-0.25 -0.1 0.25 0.02)",
        "(-0.02 -0.02 0.02 0.02)",
        7,
        5,
        "region 'table_candidates' is smaller than the footprint of 'block_a' (radius 0.029 m): no rectangle is wider and deeper than 0.058 m",
    ),
    (
        "RSB502",
        BASE,
        "(-0.25 -0.1 0.25 0.02)",
        "(0.42 -0.05 0.52 0.05)",
        7,
        5,
        "no point of region 'table_candidates' (shrunk by the footprint radius 0.029 m of 'block_a') is within the arms' reach: 0.2-0.56 m from a waist axis at left (-0.469, 0), right (0.469, 0)",
    ),
    (
        "RSB503",
        BASE,
        "(:min_spacing 0.07)",
        "(:min_spacing 0.2)",
        27,
        3,
        "the 4 candidates fit in 0 of 16 trial layouts of table_candidates (centers at least 0.2 m apart, within reach, clear of the answer zone); enlarge the regions or lower :min_spacing",
    ),
    (
        "RSB504",
        BASE,
        "(In ?answer table_answer_zone)",
        "(In ?answer table_candidates)",
        26,
        27,
        "(In ... table_candidates) in :goal cannot be scored: only the answer zone has a signal; valid choices: table_answer_zone",
    ),
    (
        "RSB504",
        BASE,
        "(In ?answer table_answer_zone)",
        "(On ?answer table_answer_zone)",
        26,
        27,
        "(On ... table_answer_zone) in :goal cannot be scored: On is scored on a candidate; valid choices: ?answer, ?c - candidate, block_a, block_b, block_c, block_d (a region takes In)",
    ),
    (
        "RSB505",
        BASE,
        "(Released ?answer)",
        "(Released table)",
        26,
        56,
        "(Released table ...) in :goal names no candidate or object; valid choices: ?answer, ?c - candidate, block_a, block_b, block_c, block_d",
    ),
    (
        "RSB505",
        A2A_BASE,
        "(Released cube)",
        "(Released table)",
        28,
        43,
        "(Released table ...) in :goal names no candidate or object; valid choices: ?answer, ?c - candidate, plate_a, plate_b, cube",
    ),
    (
        "RSB506",
        BASE,
        "(:grasp (Grasped ?c - candidate))",
        "(:grasp (And (Grasped ?c - candidate) (Released ?d - candidate)))",
        25,
        51,
        ":grasp has 2 variables ranging over the candidates (?c, ?d); the scorer binds one",
    ),
    (
        "RSB507",
        BASE,
        "block_d - letter_block)",
        "block_d - letter_block can_1 - can)",
        17,
        52,
        "object 'can_1' has no (On can_1 REGION) in :init; the scene cannot place it",
    ),
    (
        "RSB507",
        BASE,
        "(On block_a table_candidates)",
        "(On block_a block_b)",
        21,
        17,
        "'block_a' is placed on 'block_b', which is not a region; valid choices: table_answer_zone, table_candidates",
    ),
    (
        "RSB508",
        BASE,
        "block_d - letter_block)",
        "block_d - letter_block world - can)",
        17,
        52,
        "object name 'world' is taken by the robot scene; reserved names: base, left_arm_mount, left_hand, right_arm_mount, right_hand, table, world",
    ),
    (
        "RSB509",
        BASE,
        "(:answer_zone table_answer_zone))",
        "(:answer_zone table_answer_zone)\n  (:camera head 0.9 0 0))",
        29,
        17,
        "head offset takes a number in [-0.5, 0.5]",
    ),
    (
        "RSB510",
        LIBERO,
        "main_table - table)",
        "main_table - table microwave_1 - microwave)",
        1,
        1,
        "no (:candidates ...) block: rsb_mj needs the objects that stand for the options",
    ),
    (
        "RSB511",
        BASE,
        "(:grasp (Grasped ?c - candidate))",
        "(:grasp )",
        25,
        3,
        "(:grasp) is empty; the scorer needs a predicate, e.g. (Grasped ?c - candidate)",
    ),
    (
        "RSB512",
        BASE,
        "  (:layout",
        "  (:cost (CheckDistance block_a block_b -1))\n  (:layout",
        27,
        41,
        "argument 3 of 'CheckDistance' in :cost must be a number >= 0",
    ),
    (
        "RSB513",
        BASE,
        "  (:layout",
        "  (:moving_objects (block_a (:motion_type circle) (:motion_period 40) (:motion_center (0 -0.04 0))))\n  (:layout",
        27,
        20,
        "the circle of 'block_a' is centered on its start place (0, -0.04); move :motion_center or the :init region",
    ),
    (
        "RSB458",
        BASE_10,
        "(:source arithmetic)",
        "(:source (arithmetic (:operators sub) (:operand_range 0 10)))",
        4,
        14,
        "(arithmetic (:operators sub) (:operand_range 0 10)) leaves no train or eval question "
        "at 10 choices (0 train, 0 eval); 1 distinct question cannot be split into train and "
        "eval; (:operand_range 0 11) gives 3",
    ),
    (
        "RSB520",
        BASE_10,
        "(:source arithmetic)",
        "(:source mmlu)",
        4,
        3,
        "(:source mmlu) cannot make 10 options; valid choices: 2, 3, 4",
    ),
]


@pytest.mark.parametrize(
    "base", [BASE, BASE_10, LIBERO, A2A_BASE], ids=["base", "base_10", "libero", "a2a"]
)
def test_the_bases_are_clean(base):
    assert lint_text(base, path_of(base))[1] == []


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


#: Rules whose findings lie in another file (a question bank): tested on real files.
IN_OTHER_FILES = {"RSB472", "RSB459"}  # tests/lang/rules/test_references.py, test_rules_sources.py


#: Every rule's cases: this module's and those of the rule families' own test modules
#: (tests/lang/rules/test_names.py, tests/lang/rules/test_semantics.py,
#: tests/lang/rules/test_runtime_goal.py).
ALL_CASES = CASES + NAMES_CASES + SEMANTICS_CASES + RUNTIME_GOAL_CASES + GOAL_RELATIONS_CASES


def test_every_semantic_rule_has_a_fixture():
    checked = {code for code, rule in RULES.items() if rule.check is not None}
    assert checked == {c[0] for c in ALL_CASES} | IN_OTHER_FILES


def test_there_are_at_least_twenty_semantic_rules():
    assert len([r for r in RULES.values() if r.check is not None]) >= 20


def test_codes_and_names_are_stable_and_kebab_case():
    for code, rule in RULES.items():
        assert code == rule.code
        assert code[:3] == "RSB" and code[3:].isdigit() and len(code) == 6
        assert rule.name == rule.name.lower() and " " not in rule.name and "_" not in rule.name
        assert rule.severity in ("error", "warning")
        assert rule.doc and rule.bad and rule.good


def test_family_of_code_matches_module():
    families = {
        "syntax": "1",
        "names": "2",
        "geometry": "3",
        "semantics": "4",
        "display": "4",
        "sources": "4",
        "motion": "4",
        "narrowed": "4",
        "references": "4",
        "runtime_layout": "5",
        "runtime_scoring": "5",
        "runtime_scene": "5",
        "runtime_question": "5",
        "runtime_goal": "5",
        "relations": "5",
        "safety": "5",
    }
    for rule in RULES.values():
        if rule.check is not None:
            module = rule.check.__module__.rsplit(".", 1)[-1]
            assert rule.code[3] == families[module], rule.code


def test_fix_suggestions():
    # (RSB201's fix: tests/lang/rules/test_names.py)
    diagnostics = lint_edit(BASE, "(-0.25 -0.1 0.25 0.02)", "(0.25 -0.1 -0.25 0.02)")
    assert [d.fix for d in diagnostics if d.code == "RSB301"] == ["(-0.25 -0.1 0.25 0.02)"]


def test_capacity_bound_is_exact_at_the_boundary():
    from rsb_mj.lang import Rect
    from rsb_mj.lang.rules.placement import capacity

    # A 0.07 m segment holds exactly 2 points 0.07 m apart, a 0.069 m one only 1.
    assert capacity((Rect(0.0, 0.0, 0.07, 0.0),), 0.07) == 2
    assert capacity((Rect(0.0, 0.0, 0.069, 0.0),), 0.07) == 1
    # The suite region holds the 10 blocks with room to spare.
    assert capacity((Rect(-0.25, -0.1, 0.25, 0.02),), 0.07) == 23


def test_placement_fixes_name_a_region_the_task_has():
    """RSB310/RSB312 suggested ``table_candidates`` whatever the task's regions were
    (geography_6 has ``fruit_area`` and ``drop_zone``)."""
    path = Path("tasks/examples/geography_6.bddl")
    text = path.read_text(encoding="utf-8")
    unplaced = text.replace("    (On fruit_f table_fruit_area))", "  )")
    found = [d for d in lint_text(unplaced, str(path))[1] if d.code == "RSB310"]
    assert [(d.message, d.fix) for d in found] == [
        (
            "candidate 'fruit_f' has no (On fruit_f REGION) in :init",
            "(On fruit_f table_fruit_area)",
        )
    ]
    in_zone = text.replace("(On fruit_f table_fruit_area))", "(On fruit_f table_drop_zone))")
    found = [d for d in lint_text(in_zone, str(path))[1] if d.code == "RSB312"]
    assert [d.fix for d in found] == ["(On fruit_f table_fruit_area)"]
    # no region of the table but the answer zone: no fix names one
    bare = unplaced.replace(
        "(fruit_area\n      (:target table)\n      (:ranges ((-0.27 -0.17 0.27 0.03))))\n    ", ""
    )
    assert "(fruit_area" not in bare
    found = [d for d in lint_text(bare, str(path))[1] if d.code == "RSB310"]
    assert [(d.message, d.fix) for d in found] == [
        (
            "candidate 'fruit_f' has no (On fruit_f REGION) in :init; declare a table region "
            "for the candidates in :regions",
            None,
        )
    ]
