"""Tests of rsb_mj.scene.compiler: every task file compiles and its scene holds still."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang import TypedName, load_task
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.workspace import TABLE_TOP_Z

TASK_FILES = sorted(tasks_dir().glob("*.bddl"))


def test_the_six_suites_and_the_beyond_blocks_tasks_are_there():
    names = {p.name for p in TASK_FILES}
    assert {"rsb_math_4.bddl", "rsb_general_10.bddl", "rsb_math_4_objects.bddl"} <= names


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.name)
def test_task_compiles_and_holds_still_for_two_seconds(path, episode_factory):
    problem = load_task(path)
    scene = compile_scene(problem)
    model = scene.model
    data = mujoco.MjData(model)
    scene.apply_episode(data, episode_factory(problem, seed=3))
    bodies = [d.name for d in problem.objects]
    start = {c: data.body(c).xpos.copy() for c in bodies}
    mujoco.mj_step(model, data, nstep=1000)  # 2 s at 2 ms, home targets held
    assert data.warning.number.sum() == 0
    for c in bodies:
        drift = np.linalg.norm(data.body(c).xpos - start[c])
        assert drift < 1e-3, f"{path.name}: {c} drifted {drift * 1000:.2f} mm"


def test_beyond_blocks_files_differ_from_their_twins_only_in_objects():
    for path in tasks_dir().glob("*_objects.bddl"):
        twin = load_task(path.with_name(path.name.replace("_objects", "")))
        objects = load_task(path)
        assert {o.category for o in objects.objects}.isdisjoint({"letter_block"})
        assert dataclasses.replace(objects, objects=twin.objects) == twin


def test_episode_sets_poses_letters_and_colors(problem_factory, episode_factory):
    problem = problem_factory(4)
    scene = compile_scene(problem)
    model = scene.model
    data = mujoco.MjData(model)
    episode = episode_factory(problem, seed=5)
    scene.apply_episode(data, episode)
    for letter, obj in episode.mapping.items():
        pose = episode.layout[obj]
        np.testing.assert_allclose(data.body(obj).xpos, [pose.x, pose.y, TABLE_TOP_Z + 0.02])
        material = model.material(model.geom_matid[model.geom(f"{obj}/box").id]).name
        assert material == f"letter_{letter}_{episode.colors[obj]}"
    assert scene.candidates == ("obj_a", "obj_b", "obj_c", "obj_d")
    np.testing.assert_allclose(scene.zone_center, [0.0, 0.16, TABLE_TOP_Z])
    np.testing.assert_allclose(scene.zone_half_size, [0.06, 0.06])
    np.testing.assert_allclose(scene.table_to_world(0.1, 0.2, 0.3), [0.1, 0.2, TABLE_TOP_Z + 0.3])
    zone = model.geom("answer_zone/0")
    np.testing.assert_allclose(zone.rgba, [0.5, 0.5, 0.5, 1.0])


def test_compiled_scene_is_deterministic(problem_factory, episode_factory):
    problem = problem_factory(10, candidates=(-0.28, -0.14, 0.28, 0.05))
    states = []
    for _ in range(2):
        scene = compile_scene(problem)
        data = mujoco.MjData(scene.model)
        scene.apply_episode(data, episode_factory(problem, seed=11))
        mujoco.mj_step(scene.model, data, nstep=50)
        states.append(data.qpos.tobytes())
    assert states[0] == states[1]


def test_unknown_category_is_a_scene_error_listing_the_valid_ones(problem_factory):
    problem = problem_factory(4)
    problem = dataclasses.replace(
        problem, objects=(TypedName("obj_a", "sock"), *problem.objects[1:])
    )
    with pytest.raises(
        SceneError,
        match=r"no scene category 'sock'; valid choices: akita_black_bowl, alphabet_soup, ",
    ):
        compile_scene(problem)


def test_episode_without_a_pose_for_a_candidate_is_rejected(problem_factory, episode_factory):
    problem = problem_factory(4)
    scene = compile_scene(problem)
    episode = episode_factory(problem)
    layout = dict(episode.layout)
    del layout["obj_c"]
    with pytest.raises(SceneError, match=r"episode layout has no pose for \['obj_c'\]"):
        scene.apply_episode(mujoco.MjData(scene.model), dataclasses.replace(episode, layout=layout))


def test_episode_places_and_colors_the_distractors(episode_factory):
    from rsb_mj.colors import rgba
    from rsb_mj.scene.frames import table_to_world

    problem = load_task(tasks_dir() / "rsb_math_4_l1.bddl")
    scene = compile_scene(problem)
    data = mujoco.MjData(scene.model)
    episode = episode_factory(problem, seed=5)
    assert sorted(episode.distractors) == ["can_1", "lemon_1", "toy_car_1"]
    scene.apply_episode(data, episode)
    for name, placed in episode.distractors.items():
        pose = placed.pose
        want = table_to_world(pose.x, pose.y, scene.rest_height[name])
        np.testing.assert_allclose(data.body(name).xpos, want, atol=1e-12)
        for geom in scene._built[name].color_geoms:
            assert tuple(scene.model.geom(geom).rgba) == pytest.approx(rgba(placed.color))
    bad = dataclasses.replace(episode, distractors={"block_a": episode.distractors["can_1"]})
    with pytest.raises(
        SceneError,
        match=r"episode distractor 'block_a' is not a non-candidate object of the task; "
        r"valid choices: can_1, lemon_1, toy_car_1",
    ):
        scene.apply_episode(data, bad)


def _model_bytes(model: mujoco.MjModel) -> bytes:
    buffer = np.empty(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, buffer)
    return buffer.tobytes()


def test_one_path_builds_the_answer_zone_as_a_patch_and_a_goal_tasks_regions_as_sites():
    """The answer zone (the region the binding's goal places ?answer into) is a gray patch
    on the table and no site; a LIBERO task's table regions are invisible sites and it has
    no zone; both scenes name the regions they built."""
    from rsb_mj.lang.linter import load_goal_task

    question = compile_scene(load_task(tasks_dir() / "rsb_math_4.bddl"))
    model = question.model
    patch = model.geom("answer_zone/0")
    assert model.body(int(patch.bodyid[0])).name == "table"
    assert (int(patch.group[0]), int(patch.contype[0]), int(patch.conaffinity[0])) == (2, 0, 0)
    np.testing.assert_allclose(patch.rgba, [0.5, 0.5, 0.5, 1.0])
    assert question.regions == ("table_answer_zone",)
    assert mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, "table_candidates") == -1
    assert question.layout is None and question.motion is not None
    assert question.zone_half_size.tolist() == pytest.approx([0.06, 0.06])

    goal = compile_scene(
        load_goal_task(tasks_dir() / "libero/libero_goal/put_the_bowl_on_the_plate.bddl")
    )
    model = goal.model
    assert goal.regions and all(
        int(model.site(name).group[0]) == 5 and model.site(name).rgba[3] == 0.0
        for name in goal.regions
    )
    assert mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "answer_zone/0") == -1
    assert goal.zone_half_size.tolist() == [0.0, 0.0] and goal.candidates == ()
    assert goal.layout is not None and goal.sensors is None and goal.motion is None


def test_a_problem_and_its_task_compile_to_the_same_model():
    from rsb_mj.lang.task import task_of

    problem = load_task(tasks_dir() / "a2a_color.bddl")
    assert _model_bytes(compile_scene(problem).model) == _model_bytes(
        compile_scene(task_of(problem)).model
    )


def test_a_fixture_other_than_the_table_in_rsbs_frame_is_refused(problem_factory):
    problem = dataclasses.replace(
        problem_factory(4),
        fixtures=(TypedName("table", "table"), TypedName("cab", "wooden_cabinet")),
    )
    with pytest.raises(
        SceneError,
        match=r"^test.bddl:.*: fixture 'cab' has category 'wooden_cabinet'; valid choices: "
        r"table$",
    ):
        compile_scene(problem)


def test_a_task_in_rsbs_frame_without_candidates_is_refused(problem_factory):
    problem = dataclasses.replace(problem_factory(4), candidate_names=())
    with pytest.raises(SceneError, match=r"^test.bddl: the task declares no :candidates$"):
        compile_scene(problem)
