"""RSB530-RSB534 (``rsb_mj.lang.rules.runtime_goal``): what keeps a goal task from running,
each at its position, on small edits of a LIBERO file; and the other side of "lint-clean
implies it runs": what each rule refuses is what the goal scene would refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang import lint_text
from rsb_mj.lang.diagnostics import TaskFileError
from rsb_mj.lang.frame_map import REHOSTED
from rsb_mj.lang.task import task_of
from rsb_mj.scene.compiler import compile_scene

from ..lang_samples import LIBERO, LIBERO_PATH
from ..rule_cases import FIELDS, expected, first_finding

_OBJECTS = """    bowl_1 - akita_black_bowl plate_1 - plate)
  (:obj_of_interest
    bowl_1
    plate_1)
  (:init
    (On bowl_1 main_table_bowl_region)
    (On plate_1 main_table_plate_region))"""
_BOARDS = " ".join(f"board_{i}" for i in range(8))
_CROWDED = f"""    bowl_1 - akita_black_bowl plate_1 - plate {_BOARDS} - cutting_board)
  (:init
    (On bowl_1 main_table_bowl_region)
    (On plate_1 main_table_plate_region)
    {" ".join(f"(On board_{i} main_table_plate_region)" for i in range(8))})"""

CASES = [
    (
        "RSB530",
        LIBERO,
        "(And (On bowl_1 plate_1))",
        "(And (On bowl_1 plate_1) (Open plate_1))",
        21,
        35,
        "(Open plate_1): 'plate_1' has no Open state in rsb_mj (its states: none; fixtures with "
        "states: wooden_cabinet, white_cabinet, microwave, flat_stove)",
    ),
    (
        "RSB531",
        LIBERO,
        "bowl_1 - akita_black_bowl",
        "bowl_1 - knife",
        14,
        12,
        "object 'bowl_1': category 'knife' has no rsb_mj model; categories with one: "
        "akita_black_bowl, alphabet_soup, answer_plate, apple, bagel, banana, basket, bbq_sauce, "
        "bell_pepper, billiard_balls, black_book, blue_mug, bottle, bowl, box, bread, broccoli, "
        "butter, cake, cake_n, ... (112 in all)",
    ),
    (
        "RSB532",
        LIBERO,
        "(-0.1 -0.01 -0.08 0.01)",
        "(-2.1 -2.01 -2.08 -1.99)",
        21,
        15,
        "no arm reaches both the :init place of 'bowl_1' and 'plate_1' on any frame map (best: "
        "scale 1, shift (0.0, 0.0)): one arm must reach both, 0.26-0.5 m from its waist axis at "
        "left (-0.469, 0), right (0.469, 0)",
    ),
    (
        "RSB533",
        LIBERO,
        "(On bowl_1 main_table_bowl_region)",
        "(On bowl_1 plate_1)",
        21,
        3,
        "the goal holds at :init ((On bowl_1 plate_1)): every episode would start solved, so the "
        "file does not run",
    ),
    (
        "RSB534",
        LIBERO,
        _OBJECTS,
        _CROWDED,
        13,
        3,
        "the 10 objects and fixtures on the table cover 1.07 m^2 (discs of their footprint "
        "radii), more than the table's 0.93 m^2: no layout keeps them apart; declare fewer or "
        "smaller ones",
    ),
]


@pytest.mark.parametrize(FIELDS, CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_exact_message(code, base, old, new, line, column, message):
    assert first_finding(code, base, old, new) == expected(code, base, line, column, message)


def _edit(old: str, new: str) -> str:
    assert old in LIBERO
    return LIBERO.replace(old, new, 1)


def _codes(text: str, target: str | None = "rsb") -> list[str]:
    return [d.code for d in lint_text(text, LIBERO_PATH, target=target)[1] if d.is_error]


def _env(text: str, tmp_path):
    from rsb_mj.env.rsb_env import GoalEnv

    path = tmp_path / LIBERO_PATH
    path.write_text(text)
    return GoalEnv(path, cameras=())


def test_the_clean_libero_file_lints_clean_as_a_scene_rsb_must_build_and_runs(tmp_path):
    assert _codes(LIBERO) == []
    env = _env(LIBERO, tmp_path)
    env.reset(seed=0)
    assert not env.checker.holds(env.data)


def test_what_rsb_cannot_build_is_an_error_only_as_a_scene_rsb_must_build(tmp_path):
    """Every tier builds; a state on a thing without it (here a plate) does not, and the
    environment refuses what lint rejects."""
    text = _edit("(And (On bowl_1 plate_1))", "(And (On bowl_1 plate_1) (Open plate_1))")
    assert _codes(text, target=None) == []  # LIBERO's own loader accepts it
    assert _codes(text) == ["RSB530"]
    with pytest.raises(Exception, match=r"rsb_mj cannot build this scene \(tier B2\)"):
        _env(text, tmp_path)


def test_a_tier_b_and_a_tier_c_file_lint_clean_and_build(tmp_path):
    """RSB530 is lifted for what builds: a LIBERO tier-B2 file (the stove turned on) and a
    libero_object floor file (tier C) lint clean with --target rsb and their environments
    reset."""
    data = Path(__file__).resolve().parents[2] / "data" / "bddl_suites" / "libero"
    for rel, tier in (
        ("libero_goal/turn_on_the_stove.bddl", "B2"),
        ("libero_object/pick_up_the_ketchup_and_place_it_in_the_basket.bddl", "C"),
    ):
        text = (data / rel).read_text()
        assert [c for c in _codes(text) if c != "RSB535"] == []
        path = tmp_path / Path(rel).name
        path.write_text(text)
        from rsb_mj.env.rsb_env import GoalEnv

        env = GoalEnv(path, cameras=())
        assert env.task.tier == tier
        _, info = env.reset(seed=0)
        assert not env.checker.holds(env.data)
        # the floor scene's records name its layout change; a table scene's have no such key
        assert info["sim"].get("layout_change") == (REHOSTED["floor"] if tier == "C" else None)


def test_a_goal_true_at_init_is_refused_before_the_scene_is_built(tmp_path):
    text = _edit("(On bowl_1 main_table_bowl_region)", "(On bowl_1 plate_1)")
    assert _codes(text, target=None) == ["RSB533"]
    with pytest.raises(TaskFileError) as err:
        _env(text, tmp_path)
    path = tmp_path / LIBERO_PATH
    assert str(err.value).splitlines() == [
        f"{path}: 1 lint error (rsb lint --target rsb {path}); a task file with lint errors "
        "does not run:",
        f"{path}:21:3: RSB533 goal-at-reset: the goal holds at :init ((On bowl_1 plate_1)): "
        "every episode would start solved, so the file does not run",
    ]


def test_a_fixture_without_a_model_is_what_the_scene_cannot_compile(tmp_path):
    text = _edit("main_table - table)", "main_table - table cab_1 - slide_cabinet)")
    text = text.replace(
        "(On plate_1 main_table_plate_region))",
        "(On plate_1 main_table_plate_region) (On cab_1 main_table_bowl_region))",
    )
    findings = [d for d in lint_text(text, LIBERO_PATH)[1] if d.code == "RSB531"]
    assert [d.message.split(";")[0] for d in findings] == [
        "fixture 'cab_1': category 'slide_cabinet' has no rsb_mj model"
    ]
    with pytest.raises(TaskFileError, match=r":12:30: RSB531 no-model: fixture 'cab_1'"):
        _env(text, tmp_path)  # refused by the linter's gate, before the scene
    task = task_of(lint_text(text, LIBERO_PATH)[0], expect="goal")
    assert task.tier == "A1"
    with pytest.raises(SceneError, match=r"fixture 'cab_1': no prop for category 'slide_cabinet'"):
        compile_scene(task)  # what the scene would have said
