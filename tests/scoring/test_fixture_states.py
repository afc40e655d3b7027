"""Open / Close / TurnOn / TurnOff and In a drawer, with LIBERO's and VLA-Arena's semantics:
hand-made joint states set in a real compiled tier-B scene (the articulated stand-ins)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import task_of
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scoring.goal_checker import GoalChecker
from rsb_mj.scoring.predicates.fixture_state import (
    FIXTURE_STATES,
    STATE_SEMANTICS,
    JointTest,
    fixture_state,
)

TASK = """(define (problem LIBERO_Kitchen_Tabletop_Manipulation)
  (:domain robosuite)
  (:language open the drawer and the microwave and turn on the stove)
  (:regions
    (cabinet_region (:target kitchen_table) (:ranges ((-0.01 -0.31 0.01 -0.29)))
      (:yaw_rotation ((3.141592653589793 3.141592653589793))))
    (microwave_region (:target kitchen_table) (:ranges ((-0.01 0.29 0.01 0.31)))
      (:yaw_rotation ((0.0 0.0))))
    (stove_region (:target kitchen_table) (:ranges ((-0.21 -0.01 -0.19 0.01)))
      (:yaw_rotation ((0.0 0.0))))
    (bowl_region (:target kitchen_table) (:ranges ((0.1 -0.05 0.12 -0.03))))
    (top_region (:target wooden_cabinet_1))
  )
  (:fixtures kitchen_table - kitchen_table wooden_cabinet_1 - wooden_cabinet
    microwave_1 - microwave flat_stove_1 - flat_stove)
  (:objects akita_black_bowl_1 - akita_black_bowl)
  (:init
    (On wooden_cabinet_1 kitchen_table_cabinet_region)
    (On microwave_1 kitchen_table_microwave_region)
    (On flat_stove_1 kitchen_table_stove_region)
    (On akita_black_bowl_1 kitchen_table_bowl_region)
  )
  (:goal (And
    (In akita_black_bowl_1 wooden_cabinet_1_top_region)
    (Open wooden_cabinet_1_top_region) (Close wooden_cabinet_1_top_region)
    (Open wooden_cabinet_1) (Close wooden_cabinet_1)
    (Open microwave_1) (Close microwave_1)
    (Turnon flat_stove_1) (Turnoff flat_stove_1)))
)
"""
#: Index of each goal term in GoalChecker.terms (its On/In relations first).
IN_TOP, OPEN_TOP, CLOSE_TOP, OPEN_CAB, CLOSE_CAB, OPEN_MW, CLOSE_MW, ON, OFF = range(9)
SOURCES = ("libero", "vla_arena")


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("tierb")) / "states.bddl"
    path.write_text(TASK)
    task = task_of(parse_file(path), expect="goal")
    assert task.tier == "B2" and task.semantics == "libero"
    return compile_scene(task).layout


def _checker(scene, source: str) -> GoalChecker:
    return GoalChecker(scene.model, dataclasses.replace(scene.task, semantics=source))


def _set(scene, data, **qpos: float) -> None:
    """Set fixture joints by their suffix (``top_level=-0.15``) and run the kinematics."""
    model = scene.model
    names = {
        "top_level": "wooden_cabinet_1/top_level",
        "middle_level": "wooden_cabinet_1/middle_level",
        "bottom_level": "wooden_cabinet_1/bottom_level",
        "microjoint": "microwave_1/microjoint",
        "button": "flat_stove_1/button",
    }
    for key, value in qpos.items():
        data.qpos[model.joint(names[key]).qposadr[0]] = value
    mujoco.mj_forward(model, data)


def test_the_checker_lists_the_relations_then_the_states(scene):
    texts = [r.text for r in _checker(scene, "libero").relations]
    assert texts == [
        "In akita_black_bowl_1 wooden_cabinet_1_top_region",
        "Open wooden_cabinet_1_top_region",
        "Close wooden_cabinet_1_top_region",
        "Open wooden_cabinet_1",
        "Close wooden_cabinet_1",
        "Open microwave_1",
        "Close microwave_1",
        "TurnOn flat_stove_1",  # LIBERO's `Turnon`, by its lowercased name
        "TurnOff flat_stove_1",
    ]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(
    ("q", "is_open", "is_closed"),
    [
        (-0.16, True, False),  # the limit: fully out
        (-0.1401, True, False),
        (-0.14, False, False),  # open is strictly below -0.14
        (-0.07, False, False),
        (0.0, False, False),  # the default: neither (closed is strictly above 0)
        (0.0001, False, True),
        (0.01, False, True),  # the limit: pushed 1 cm past 0
    ],
)
def test_a_drawer_region_reads_its_own_joint_at_each_threshold(
    scene, source, q, is_open, is_closed
):
    checker, data = _checker(scene, source), mujoco.MjData(scene.model)
    _set(scene, data, top_level=q, middle_level=-0.15, bottom_level=0.005)
    terms = checker.terms(data)
    assert (terms[OPEN_TOP], terms[CLOSE_TOP]) == (is_open, is_closed)


@pytest.mark.parametrize("source", SOURCES)
def test_a_whole_cabinet_is_open_when_any_drawer_is_and_closed_when_all_are(scene, source):
    checker, data = _checker(scene, source), mujoco.MjData(scene.model)
    _set(scene, data, top_level=0.005, middle_level=0.005, bottom_level=-0.15)
    terms = checker.terms(data)
    assert (terms[OPEN_CAB], terms[CLOSE_CAB], terms[OPEN_TOP], terms[CLOSE_TOP]) == (
        True,  # the bottom drawer is out
        False,
        False,  # the top drawer's region reads the top drawer alone
        True,
    )
    _set(scene, data, bottom_level=0.005)
    terms = checker.terms(data)
    assert (terms[OPEN_CAB], terms[CLOSE_CAB]) == (False, True)
    _set(scene, data, bottom_level=0.0)  # one drawer at exactly 0: not all closed
    assert checker.terms(data)[CLOSE_CAB] is False


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(
    ("q", "is_open", "is_closed"),
    [
        (-2.094, True, False),
        (-1.3001, True, False),
        (-1.3, False, False),  # open is strictly below -1.3 rad (74.5 degrees)
        (-0.5, False, False),
        (-0.005, False, False),  # closed is strictly above -0.005 rad
        (-0.0049, False, True),
        (0.0, False, True),
    ],
)
def test_the_microwave_door_at_each_threshold(scene, source, q, is_open, is_closed):
    checker, data = _checker(scene, source), mujoco.MjData(scene.model)
    _set(scene, data, microjoint=q)
    terms = checker.terms(data)
    assert (terms[OPEN_MW], terms[CLOSE_MW]) == (is_open, is_closed)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(
    ("q", "on", "off"),
    [
        (2.1, True, False),
        (0.5, True, False),  # on is >= 0.5 rad
        (0.4999, False, False),
        (0.0, False, False),  # the default: neither on nor off
        (-0.0001, False, True),
        (-0.005, False, True),  # the limit
    ],
)
def test_the_stove_knob_at_each_threshold(scene, source, q, on, off):
    checker, data = _checker(scene, source), mujoco.MjData(scene.model)
    _set(scene, data, button=q)
    terms = checker.terms(data)
    assert (terms[ON], terms[OFF]) == (on, off)


def test_both_sources_use_the_same_thresholds():
    assert STATE_SEMANTICS["libero"] == STATE_SEMANTICS["vla_arena"] == FIXTURE_STATES
    assert FIXTURE_STATES["wooden_cabinet"] == {
        "open": JointTest("<", -0.14),
        "close": JointTest(">", 0.0),
    }
    # the short cabinet opens the other way (positive slides), as LIBERO's ShortCabinet
    assert FIXTURE_STATES["short_cabinet"]["open"](0.11) is True
    assert FIXTURE_STATES["short_cabinet"]["close"](-0.001) is True
    assert fixture_state("close", FIXTURE_STATES["microwave"], []) is False  # no joint


def test_in_a_drawer_region_moves_with_the_drawer(scene):
    model, data = scene.model, mujoco.MjData(scene.model)
    checker = _checker(scene, "libero")
    site = model.site("wooden_cabinet_1_top_region").id
    adr = model.joint("akita_black_bowl_1/free").qposadr[0]
    _set(scene, data, top_level=-0.15)
    out = data.site_xpos[site].copy()
    _set(scene, data, top_level=0.0)
    home = data.site_xpos[site].copy()
    # the drawer slides 0.15 m along the fixture's y axis, horizontally
    assert np.linalg.norm(out - home) == pytest.approx(0.15, abs=1e-9)
    assert out[2] == pytest.approx(home[2], abs=1e-9)
    half = model.site_size[site]
    for drawer, inside in ((-0.15, out), (0.0, home)):
        data.qpos[adr : adr + 3] = inside
        _set(scene, data, top_level=drawer)
        assert checker.terms(data)[IN_TOP] is True
    data.qpos[adr : adr + 3] = out  # the open drawer's place, the drawer now shut
    _set(scene, data, top_level=0.0)
    assert checker.terms(data)[IN_TOP] is False
    # the floor is lowered by 1 cm: 9 mm under the box is in, 11 mm is not
    for below, inside in ((0.009, True), (0.011, False)):
        data.qpos[adr : adr + 3] = home - [0.0, 0.0, half[2] + below]
        mujoco.mj_forward(model, data)
        assert checker.terms(data)[IN_TOP] is inside


def test_the_burner_is_lit_while_the_stove_is_on(scene):
    model, data = scene.model, mujoco.MjData(scene.model)
    checker = _checker(scene, "libero")
    burner = model.site("flat_stove_1/burner").id
    for q, alpha in ((0.7, 1.0), (0.0, 0.0), (0.5, 1.0), (0.4999, 0.0)):
        _set(scene, data, button=q)
        checker.light(data)
        assert model.site_rgba[burner, 3] == alpha


def test_a_state_a_fixture_does_not_have_is_an_error_at_its_position(scene):
    bad = dataclasses.replace(
        scene.task,
        goal_states=(dataclasses.replace(scene.task.goal_states[-1], target="wooden_cabinet_1"),),
    )
    with pytest.raises(SceneError) as err:
        GoalChecker(scene.model, bad)
    line = scene.task.goal_states[-1].span.line
    assert f"states.bddl:{line}:" in str(err.value)
    assert str(err.value).endswith(
        "(TurnOff wooden_cabinet_1): a wooden_cabinet has no 'turnoff' state "
        "(its states: close, open)"
    )


def test_a_bowl_in_the_open_drawer_stays_in_as_the_drawer_is_pushed_shut(scene):
    """Physics, not hand-set states: the bowl put on the open drawer's floor (as an ``In``
    at :init is), then 15 N along the slide for 3 s: the drawer closes (qpos > 0, against
    its damping of 50 N s/m) carrying the bowl, which stays In its region."""
    opened = dataclasses.replace(
        scene, init_joints=((("wooden_cabinet_1/top_level",), (-0.15, -0.15)),)
    )
    layout = next(opened.layouts(0))
    assert layout["wooden_cabinet_1/top_level"] == (-0.15,)
    into = scene.task.goal[IN_TOP]
    layout["akita_black_bowl_1"] = opened._pose(into, layout, np.random.default_rng(0))
    model, data = scene.model, mujoco.MjData(scene.model)
    assert opened.place(data, layout) is None
    checker = _checker(scene, "libero")
    assert checker.terms(data)[IN_TOP : CLOSE_TOP + 1] == [True, True, False]
    slide = model.joint("wooden_cabinet_1/top_level")
    data.qfrc_applied[slide.dofadr[0]] = 15.0
    mujoco.mj_step(model, data, nstep=round(3.0 / model.opt.timestep))
    assert data.qpos[slide.qposadr[0]] > 0.0
    assert checker.terms(data)[IN_TOP : CLOSE_TOP + 1] == [True, False, True]
