"""One registry per fact: the linter's facts equal the runtime's (table, reach, names, rates,
splits, predicates, categories)."""

from __future__ import annotations

import itertools

import mujoco
import pytest

from rsb_mj import rates, splits, workspace
from rsb_mj.lang.block_values import QUESTION_SOURCES, SOURCE_CHOICES
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.predicates import PREDICATES, RSB_SCOREABLE
from rsb_mj.lang.table_top import TABLE_HALF_SIZE
from rsb_mj.scene import aloha
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.scoring.predicates import PREDICATES as SCORED


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return aloha.aloha_spec("fast").compile()


def test_linter_table_is_the_compiled_table_top(model):
    top = model.geom("table_top")
    assert tuple(top.size[:2]) == workspace.TABLE_HALF_XY == TABLE_HALF_SIZE
    assert model.body("table").pos[2] == workspace.TABLE_TOP_Z
    assert model.geom_pos[top.id][2] + top.size[2] == 0.0  # its upper face is the table top


def test_reserved_object_names_are_the_scene_bodies(model):
    bodies = {model.body(i).name for i in range(model.nbody)}
    assert {b for b in bodies if "/" not in b} == workspace.SCENE_BODY_NAMES


def test_rates_are_the_compiled_timestep(model):
    assert model.opt.timestep == rates.PHYSICS_TIMESTEP_S
    assert round(1 / model.opt.timestep) == rates.PHYSICS_HZ == 500
    assert rates.SUBSTEPS * rates.CONTROL_HZ == rates.PHYSICS_HZ
    from rsb_mj.evaluation.metrics import SETTING_DEFAULTS
    from rsb_mj.rates import CONTROL_HZ

    assert CONTROL_HZ == SETTING_DEFAULTS["control_hz"] == rates.CONTROL_HZ == 20


def test_split_names_are_defined_once():
    from rsb_mj.env import rsb_env
    from rsb_mj.episodes.sources import base
    from rsb_mj.evaluation import runner

    assert rsb_env.SPLITS is base.SPLITS is runner.SPLITS is splits.SPLITS == ("train", "eval")


def test_every_scoreable_predicate_is_registered_for_rsb():
    rsb = {name for name, cls in SCORED.items() if "rsb" in cls.variants}
    assert rsb == RSB_SCOREABLE
    for name in rsb:
        assert "rsb" in PREDICATES[name.lower()].domains


def test_every_scene_category_is_a_vocabulary_category():
    assert set(CATEGORIES) == set(RSB_CATEGORIES)


@pytest.mark.parametrize(
    ("rect", "expected"),
    [
        ((-0.25, -0.12, 0.25, 0.02), True),
        ((-0.6, 0.3, -0.5, 0.38), True),  # the far left corner
        ((-0.05, -0.05, 0.05, 0.05), True),  # between the arms
        ((-0.1, 0.37, 0.1, 0.38), True),  # the far edge
        ((0.4, -0.1, 0.5, 0.1), False),  # around the right waist: inside REACH_MIN
        ((-0.5, -0.05, -0.44, 0.05), False),  # around the left waist
        ((0.0, 0.6, 0.1, 0.7), False),  # beyond REACH_MAX of the right arm
    ],
)
def test_rect_reachable_agrees_with_the_point_rule(rect, expected):
    x0, y0, x1, y1 = rect
    steps = 60
    grid = itertools.product(
        [x0 + (x1 - x0) * i / steps for i in range(steps + 1)],
        [y0 + (y1 - y0) * j / steps for j in range(steps + 1)],
    )
    assert any(workspace.reachable(x, y) for x, y in grid) == expected
    assert workspace.rect_reachable(*rect) == expected


def test_source_choice_counts_are_the_samplers():
    from rsb_mj.episodes.sources import SOURCES

    assert {n: tuple(s.choices) for n, s in SOURCES.items()} == SOURCE_CHOICES
    assert set(SOURCES) <= set(QUESTION_SOURCES)


# Template placeholders: the linter (rsb_mj.lang.templates), the template loader and the
# instruction renderer (rsb_mj.episodes.templates, rsb_mj.episodes.sampler) read one
# registry, rsb_mj.choices.


def _task_of_n(n: int):
    """The typed view of a task with ``n`` letter-block candidates (obj_a, obj_b, ...)."""
    from rsb_mj.lang import parse_text
    from rsb_mj.lang.task import task_of

    names = " ".join(f"obj_{x}" for x in "abcdefghik"[:n])
    text = (
        f"(define (problem p{n}) (:domain rsb) (:question (:source arithmetic) (:choices {n}))"
        f" (:objects {names} - letter_block) (:candidates {names}))"
    )
    return task_of(parse_text(text))


def _filled(n: int) -> dict[str, str]:
    """What the sampler fills for an ``n``-choice episode (option k is ``1k``; letter L
    maps to obj_l; every candidate red)."""
    from rsb_mj.choices import LETTERS
    from rsb_mj.episodes.instructions import instruction_values

    letters = LETTERS[n]
    mapping = {x: f"obj_{x.lower()}" for x in letters}
    options = tuple(f"1{k}" for k in range(n))
    return instruction_values(
        _task_of_n(n), "what is 5 plus 6?", options, mapping, dict.fromkeys(mapping.values(), "red")
    )


@pytest.mark.parametrize("n", range(2, 11))
def test_the_linter_accepts_exactly_the_placeholders_the_runtime_fills(n):
    from rsb_mj import choices
    from rsb_mj.episodes import templates as runtime
    from rsb_mj.lang import templates as linter

    assert tuple(range(2, 11)) == choices.CHOICE_COUNTS
    accepted = linter.PLACEHOLDERS[n]
    assert accepted == choices.placeholders(n)
    assert tuple(_filled(n)) == accepted  # the sampler's values, in the registry's order
    assert linter.REQUIRED[n] == runtime.PLACEHOLDERS[n] == choices.required_placeholders(n)
    assert set(choices.required_placeholders(n)) <= set(accepted)
    maps = tuple(f"MAP{x}" for x in choices.LETTERS[n]) if n <= 8 else ()
    assert accepted == ("Q", *maps, "OPTIONS")


@pytest.mark.parametrize("n", range(2, 11))
def test_linter_and_loader_judge_every_template_alike(n):
    """A template with every accepted placeholder passes both; dropping a required one, or
    adding one from another choice count, fails both."""
    from rsb_mj.choices import ALPHABET, placeholders, required_placeholders
    from rsb_mj.episodes.templates import Template, render, template_problems
    from rsb_mj.lang.templates import lint_template

    def judged(text: str) -> tuple[list[str], list[str]]:
        return [d.code for d in lint_template(text, "t.txt", n)], template_problems(text, n)

    full = " ".join("{" + p + "}" for p in placeholders(n)) + " put it in the zone"
    assert judged(full) == ([], [])
    rendered = render(Template("t", full, "", 1), _filled(n))
    assert "{" not in rendered and "}" not in rendered
    for p in required_placeholders(n):
        codes, problems = judged(full.replace("{" + p + "}", ""))
        assert codes == ["RSB432"]
        assert problems == [f"placeholder {{{p}}} appears 0 times; it must appear once"]
    foreign = sorted({p for m in range(2, 11) for p in placeholders(m)} - set(placeholders(n)))
    others = ALPHABET[n:8] if n <= 8 else ALPHABET[:8]  # MAPA..MAPH: the colors style's
    assert foreign == [f"MAP{x}" for x in others]
    for p in foreign:
        codes, problems = judged(full + " {" + p + "}")
        assert codes == ["RSB433"]
        assert problems and problems[0].startswith(f"unknown placeholder {{{p}}}")


def test_every_shipped_template_lints_clean_and_renders_fully():
    from rsb_mj.choices import CHOICE_COUNTS
    from rsb_mj.episodes.templates import (
        ANSWER_FORMS,
        TEMPLATE_SETS,
        load_answer_templates,
        load_templates,
        render,
        templates_dir,
    )
    from rsb_mj.lang import lint_file
    from rsb_mj.lang.templates import choices_from_name

    files = sorted(templates_dir().glob("*.txt"))
    expected = {f"{s}_{n}.txt" for s in TEMPLATE_SETS for n in CHOICE_COUNTS}
    answers = {f"a2a-{s}-{f}.txt" for s in TEMPLATE_SETS for f in ANSWER_FORMS.values()}
    assert {f.name for f in files} == expected | answers  # seen/unseen x 2..10, 4 A2A files
    for set_name in TEMPLATE_SETS:
        for form in ANSWER_FORMS:
            for template in load_answer_templates(set_name, form):
                path = templates_dir() / f"a2a-{set_name}-{ANSWER_FORMS[form]}.txt"
                assert lint_file(path)[1] == [], path.name
                assert render(template, {"Q": "the red circle"}).count("the red circle") == 1
    rendered = 0
    for path in (f for f in files if f.name in expected):
        assert lint_file(path)[1] == [], path.name
        n = choices_from_name(path.name)
        values = _filled(n)
        for template in load_templates(path.stem.split("_")[0], n):
            text = render(template, values)
            assert "{" not in text and "}" not in text, template.id
            assert "what is 5 plus 6?" in text, template.id
            rendered += 1
    assert rendered >= 18 * 5
