"""Tests of the category registry rsb_mj.scene.categories."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.scene.categories import CATEGORIES, get_category
from rsb_mj.scene.categories.standins import STANDINS

#: The question tasks' categories (the stand-ins are tested in test_standins.py).
QUESTION = {name: c for name, c in CATEGORIES.items() if name not in STANDINS}

#: Signs of the 8 corners of a box.
SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def test_registry_matches_the_task_language_vocabulary():
    assert set(CATEGORIES) == set(RSB_CATEGORIES)
    assert len([c for c in QUESTION if c != "letter_block"]) >= 20
    assert len(QUESTION) == 24


@pytest.mark.parametrize("name", sorted(QUESTION))
def test_object_fits_its_footprint_rests_on_the_table_and_is_graspable(name):
    category = get_category(name)
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(name="obj", pos=[0, 0, category.rest_height])
    body.add_freejoint()
    built = category.build(spec, body, "obj")
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    lowest, radius = np.inf, 0.0
    points = []
    for g in range(model.ngeom):
        if model.geom_contype[g] == 0:
            continue
        # Mesh vertices, or the corners of a primitive's local box (as the expert reads
        # them: rsb_mj.expert.grasp.collision_points), in the world frame.
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            adr, n = (
                model.mesh_vertadr[model.geom_dataid[g]],
                model.mesh_vertnum[model.geom_dataid[g]],
            )
            local = model.mesh_vert[adr : adr + n]
        else:
            local = model.geom_aabb[g, :3] + SIGNS * model.geom_aabb[g, 3:]
        world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        lowest = min(lowest, world[:, 2].min())
        points.append(world)
        radius = max(radius, np.hypot(world[:, 0], world[:, 1]).max())
    assert abs(lowest) < 1.5e-3, f"{name} rests {lowest * 1000:.2f} mm off the table"
    # The footprint bounds what collides (and what is drawn: see the next test).
    assert radius <= RSB_CATEGORIES[name].footprint_radius + 1e-3
    extent = np.ptp(np.concatenate(points), axis=0)
    if name == "answer_plate":  # Act2Answer's plate is never grasped (the cube is)
        assert (built.grip_width, round(float(extent[1]), 6)) == (0.12, 0.12)
        return
    assert 0.02 < built.grip_width <= 0.06  # the open gripper spans 6.2 cm between its pads
    assert abs(extent[1] - built.grip_width) < 2e-3  # measured along body y
    assert extent[1] <= extent[0] + 5e-3  # ... the narrow side (round ones: about equal)
    assert all(model.geom(g).id >= 0 for g in (*built.color_geoms, *built.letter_geoms))
    assert bool(built.letter_geoms) == RSB_CATEGORIES[name].letters


def test_unknown_category_lists_the_valid_ones():
    with pytest.raises(
        SceneError,
        match=r"no scene category 'sock'; valid choices: akita_black_bowl, alphabet_soup, answer",
    ):
        get_category("sock")


def test_footprint_radius_is_the_drawn_objects_within_3_mm():
    """The vocabulary's footprint (linter, layout sampler) is the built object's, within 3 mm;
    stems, beaks and wheels are only drawn, but the layout keeps them apart as well."""
    for name, category in QUESTION.items():
        drawn = 0.0
        spec = mujoco.MjSpec()
        body = spec.worldbody.add_body(name="obj", pos=[0, 0, category.rest_height])
        category.build(spec, body, "obj")
        model = spec.compile()
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        for g in range(model.ngeom):
            if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
                mid = model.geom_dataid[g]
                adr, n = model.mesh_vertadr[mid], model.mesh_vertnum[mid]
                local = model.mesh_vert[adr : adr + n]
            else:
                # A primitive's local box: a bound, a little wide for a turned capsule.
                local = model.geom_aabb[g, :3] + SIGNS * model.geom_aabb[g, 3:]
            world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
            drawn = max(drawn, float(np.hypot(world[:, 0], world[:, 1]).max()))
        footprint = RSB_CATEGORIES[name].footprint_radius
        assert footprint - 3e-3 <= drawn <= footprint + 1e-3, name


def test_at_least_twenty_everyday_categories_with_the_papers_examples():
    everyday = set(QUESTION) - {"letter_block", *ACT2ANSWER}
    assert len(everyday) >= 20
    assert {"toy_car", "playing_card", "shoe"} <= everyday  # the RSB paper's examples
    assert {"apple", "orange", "pear", "banana", "lemon"} <= everyday  # fruit
    assert {"hammer", "screwdriver", "wrench"} <= everyday  # tools
    assert {"mug", "bowl", "spoon"} <= everyday  # kitchenware


TASK = """(define (problem objects_test)
  (:domain rsb)
  (:question (:source mmlu) (:choices 4))
  (:instruction (:templates seen))
  (:regions
    (candidates (:target table) (:ranges ((-0.27 -0.17 0.27 0.03))))
    (answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))) (:rgba (0.5 0.5 0.5 1))))
  (:fixtures table - table)
  (:objects block_a - {0} block_b - {1} block_c - {2} block_d - {3})
  (:candidates block_a block_b block_c block_d)
  (:options (:map shuffle))
  (:init (On block_a table_candidates) (On block_b table_candidates)
    (On block_c table_candidates) (On block_d table_candidates))
  (:grasp (Grasped ?c - candidate))
  (:goal (And (In ?answer table_answer_zone) (Released ?answer)))
  (:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3))))
"""
#: Act2Answer's cube and plates (rsb_mj.lang.a2a): not candidates of an RSB task.
ACT2ANSWER = ("pick_cube", "answer_plate")
#: Every category but the block, four to a scene (the last scene repeats the first ones).
EVERYDAY = sorted(c for c in QUESTION if c not in ("letter_block", *ACT2ANSWER))
GROUPS = [tuple((EVERYDAY * 2)[i : i + 4]) for i in range(0, len(EVERYDAY), 4)]


@pytest.mark.parametrize("group", GROUPS, ids="-".join)
def test_each_category_rests_still_and_the_expert_places_it(group, tmp_path):
    """In a real scene (robot, table, neighbours), each object stays put while the arms hold
    their pose, and the expert grasps it and places it in the answer zone (one seed)."""

    from rsb_mj.env.rsb_env import RsbEnv
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.lang import load_task
    from rsb_mj.policies.scripted import ExpertPolicy

    path = tmp_path / "objects_test.bddl"
    path.write_text(TASK.format(*group), encoding="utf-8")
    problem = load_task(path)
    env = RsbEnv(task=problem, split="train", cameras=())
    try:
        obs, _ = env.reset(seed=0)
        episode = env.episode
        bodies = [env.model.body(b).id for b in env.scene.candidate_bodies]
        before = env.data.xpos[bodies].copy()
        for _ in range(20):  # 1 s holding the home pose
            obs, *_ = env.step(obs["state"])
        moved = np.abs(env.data.xpos[bodies] - before).max(axis=1)
        assert moved.max() < 1e-3, dict(zip(group, moved, strict=True))
        for letter, obj in sorted(episode.mapping.items()):
            target = episode.rebound(correct=letter)
            run = Rollout(env, ExpertPolicy(), target, problem, max_steps=400).run()
            category = problem.category_of(obj)
            assert (run.success, run.grasped, run.choice) == (True, True, obj), (
                f"{category}: {run.failure_reason}"
            )
    finally:
        env.close()


def _signed_volume(verts: np.ndarray, faces: np.ndarray) -> float:
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def test_generated_meshes_are_closed_and_face_outward():
    from rsb_mj.scene.categories.shapes import capsule_hull, lay_along_x, revolve

    cylinder = ((0.0, 0.0), (0.01, 0.0), (0.01, 0.02), (0.0, 0.02))
    meshes = {
        "cylinder": revolve(cylinder),
        "octagonal prism along x": lay_along_x(*revolve(cylinder, segments=8)),
        "capsule": capsule_hull(np.zeros(3), np.array([0.03, 0.01, 0.0]), 0.01),
    }
    for name, (verts, faces) in meshes.items():
        edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), 1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        assert set(counts.tolist()) == {2}, name  # closed: every edge in two triangles
        assert _signed_volume(verts, faces) > 0, name  # counter-clockwise from outside
    # A 24-sided cylinder of radius 1 cm and height 2 cm: 24 * sin(15 deg) / pi of the disc.
    volume = _signed_volume(*meshes["cylinder"])
    assert volume == pytest.approx(np.pi * 0.01**2 * 0.02 * 12 * np.sin(np.pi / 12) / np.pi)
    with pytest.raises(ValueError, match="starts and ends on the axis"):
        revolve(((0.01, 0.0), (0.0, 0.02)))
