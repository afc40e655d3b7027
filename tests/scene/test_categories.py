"""Tests of the category registry rsb_mj.scene.categories."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang.vocabulary import RSB_CATEGORIES
from rsb_mj.scene.categories import CATEGORIES, get_category


def test_registry_matches_the_task_language_vocabulary():
    assert set(CATEGORIES) == set(RSB_CATEGORIES)
    assert len([c for c in CATEGORIES if c != "letter_block"]) >= 3


@pytest.mark.parametrize("name", sorted(CATEGORIES))
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
        # Box corners (boxes) or mesh vertices, in the world frame.
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            adr, n = (
                model.mesh_vertadr[model.geom_dataid[g]],
                model.mesh_vertnum[model.geom_dataid[g]],
            )
            local = model.mesh_vert[adr : adr + n]
        else:
            size = model.geom_size[g]
            local = np.array(np.meshgrid(*[[-s, s] for s in size])).reshape(3, -1).T
        world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        lowest = min(lowest, world[:, 2].min())
        points.append(world)
        radius = max(radius, np.hypot(world[:, 0], world[:, 1]).max())
    assert abs(lowest) < 1.5e-3, f"{name} rests {lowest * 1000:.2f} mm off the table"
    # The vocabulary's footprint (linter, layout sampler) is the built object's, within 3 mm.
    assert RSB_CATEGORIES[name].footprint_radius - 3e-3 <= radius
    assert radius <= RSB_CATEGORIES[name].footprint_radius + 1e-3
    assert 0.02 < built.grip_width <= 0.06  # the open gripper spans 6.2 cm between its pads
    extent = np.ptp(np.concatenate(points), axis=0)
    assert abs(extent[1] - built.grip_width) < 2e-3  # measured along body y
    assert extent[1] <= extent[0] + 5e-3  # ... the narrow side (round ones: about equal)
    assert all(model.geom(g).id >= 0 for g in (*built.color_geoms, *built.letter_geoms))
    assert bool(built.letter_geoms) == RSB_CATEGORIES[name].letters


def test_unknown_category_lists_the_valid_ones():
    with pytest.raises(SceneError, match=r"no scene category 'shoe'; valid choices: bottle, bread"):
        get_category("shoe")
