"""One registry per fact: the linter's facts equal the runtime's (table, reach, names, rates,
splits, predicates, categories)."""

from __future__ import annotations

import itertools

import mujoco
import pytest

from rsb_mj import rates, splits, workspace
from rsb_mj.lang import vocabulary
from rsb_mj.scene import aloha
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.scoring.predicates import PREDICATES as SCORED


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return aloha.aloha_spec("fast").compile()


def test_linter_table_is_the_compiled_table_top(model):
    top = model.geom("table_top")
    assert tuple(top.size[:2]) == workspace.TABLE_HALF_XY == vocabulary.TABLE_HALF_SIZE
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
    from rsb_mj.suites import CONTROL_HZ

    assert CONTROL_HZ == SETTING_DEFAULTS["control_hz"] == rates.CONTROL_HZ == 20


def test_split_names_are_defined_once():
    from rsb_mj.env import rsb_env
    from rsb_mj.episodes.sources import base
    from rsb_mj.evaluation import runner

    assert rsb_env.SPLITS is base.SPLITS is runner.SPLITS is splits.SPLITS == ("train", "eval")


def test_every_scoreable_predicate_is_registered_for_rsb():
    assert set(SCORED) == vocabulary.RSB_SCOREABLE
    for name in SCORED:
        assert "rsb" in vocabulary.PREDICATES[name.lower()].domains


def test_every_scene_category_is_a_vocabulary_category():
    assert set(CATEGORIES) == set(vocabulary.RSB_CATEGORIES)


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

    assert {n: tuple(s.choices) for n, s in SOURCES.items()} == vocabulary.SOURCE_CHOICES
    assert set(SOURCES) <= set(vocabulary.QUESTION_SOURCES)
