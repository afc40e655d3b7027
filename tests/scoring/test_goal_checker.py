"""The goal checker on a real compiled LIBERO scene: each goal term is its predicate's
variant for the task's source, looked up in the one registry."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import EvalError, SceneError
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import task_of
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scoring.goal_checker import GoalChecker

BOWL_ON_PLATE = "libero/libero_goal/put_the_bowl_on_the_plate.bddl"


@pytest.fixture(scope="module")
def scene():
    task = task_of(parse_file(tasks_dir() / BOWL_ON_PLATE), expect="goal")
    assert [r.text for r in task.goal] == ["On akita_black_bowl_1 plate_1"]
    return compile_scene(task).layout


def _place(scene, data, dx: float, dz: float) -> None:
    """The bowl's origin ``dx`` [m] beside the plate's along world x and ``dz`` above it."""
    model = scene.model
    adr = model.jnt_qposadr[model.body("akita_black_bowl_1").jntadr[0]]
    data.qpos[adr : adr + 3] = data.xpos[model.body("plate_1").id] + np.array([dx, 0.0, dz])
    data.qpos[adr + 3 : adr + 7] = [1.0, 0.0, 0.0, 0.0]
    mujoco.mj_forward(model, data)


@pytest.mark.parametrize(
    ("dx", "dz", "libero", "vla_arena"),
    [
        (0.0, 0.005, True, True),
        (0.02, 0.005, True, True),
        (0.05, 0.005, False, True),  # beyond LIBERO's 0.03 m, within VLA-Arena's 0.07 m
        (0.08, 0.005, False, False),
        (0.0, 0.20, False, False),  # above the plate, touching nothing
    ],
)
def test_on_an_object_is_the_variant_of_the_tasks_source(scene, dx, dz, libero, vla_arena):
    data = mujoco.MjData(scene.model)
    scene.reset(data, 0)
    _place(scene, data, dx, dz)
    got = {
        source: GoalChecker(scene.model, dataclasses.replace(scene.task, semantics=source))
        for source in ("libero", "vla_arena")
    }
    assert got["libero"].terms(data) == [libero]
    assert got["vla_arena"].terms(data) == [vla_arena]
    assert got["libero"].holds(data) is libero


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (
            {"place": "plate_9"},
            SceneError,
            ": the goal names 'akita_black_bowl_1' / 'plate_9', which the scene does not have",
        ),
        (  # the grasp rule is rsb's alone
            {"predicate": "Grasped"},
            EvalError,
            ": predicate 'Grasped' cannot be scored; valid choices: "
            "Close, In, On, Open, TurnOff, TurnOn",
        ),
    ],
    ids=["missing-body", "rsb-only-predicate"],
)
def test_a_goal_term_that_cannot_be_bound_is_an_error_at_its_position(
    scene, change, error, message
):
    rel = scene.task.goal[0]
    bad = dataclasses.replace(scene.task, goal=(dataclasses.replace(rel, **change),))
    with pytest.raises(error) as err:
        GoalChecker(scene.model, bad)
    assert str(err.value) == f"{scene.task.path}:{rel.span.line}:{rel.span.column}{message}"
