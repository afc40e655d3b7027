"""Laying a held object down on a sloped region (rsb_mj.expert.lay): LIBERO's wine rack."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.lay import RELEASE_GAP, UP_SLOPE, lay_targets, sloped
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.scoring.predicates.on import on_site

from .goal_play import play

TASKS = Path(__file__).resolve().parents[2] / "tasks"
#: LIBERO's wine rack top_region: quat (0.8549, -0.5188, 0, 0), a turn of -62.5 degrees
#: about x (wine_rack.xml).
RACK_QUAT = np.array([0.8549119, -0.5187733, 0.0, 0.0])


def _mat(quat: np.ndarray) -> np.ndarray:
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, quat / np.linalg.norm(quat))
    return m.reshape(3, 3)


def test_only_a_region_leaning_past_30_degrees_is_sloped():
    assert sloped(_mat(RACK_QUAT))
    assert not sloped(np.eye(3))
    a = math.radians(25.0)
    c, s = math.cos(a), math.sin(a)
    assert not sloped(np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]))


def test_the_laid_object_lies_along_the_region_above_its_plane():
    """A bottle held by its neck (origin 5.7 cm along the TCP's z, 2.2 cm thick) is laid
    with its axis along the site's x either way, its origin 3 cm up the slope and its
    radius plus the release gap above the site along the plane's normal."""
    rot = _mat(RACK_QUAT)
    site = np.array([-0.18, 0.185, 0.968])
    local = np.array([0.0, 0.0, 0.057])
    targets = lay_targets(site, rot, local, 0.022)
    assert len(targets) == 2
    normal = targets[0][2]
    assert normal[2] > 0.8 and abs(normal @ rot[:, 1]) == pytest.approx(1.0)
    origin = site + UP_SLOPE * rot[:, 2] + (0.022 + RELEASE_GAP) * normal
    for (p, tcp_rot, _), sign in zip(targets, (1, -1), strict=True):
        assert np.allclose(tcp_rot.T @ tcp_rot, np.eye(3))
        assert np.allclose(tcp_rot[:, 2], sign * rot[:, 0])  # the long axis along the site's x
        assert abs(tcp_rot[:, 0] @ normal) < 1e-9  # the fingers close across the plane
        assert np.allclose(p + tcp_rot @ local, origin)
    # resting on the plane, whose top is 5 mm under the site's centre (the release gap
    # gone), the origin satisfies LIBERO's On
    rest = origin - (RELEASE_GAP + 0.005) * normal
    assert on_site(rest, site, rot, np.array([0.10087, 0.022, 0.00251]))


def test_the_wine_bottle_is_laid_in_the_rack():
    """libero_goal's "put the wine bottle on the rack": the pose above the 33 cm rack was
    out of reach (5/5 "no reachable pose above the zone"), and a bottle standing on the
    31-degree plane would not satisfy On anyway; laid in it against its lip, it does, and
    stays there."""
    env = GoalEnv(TASKS / "libero/libero_goal/put_the_wine_bottle_on_the_rack.bddl", cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        info, _ = play(env, expert, obs)
        assert expert.failure is None and info["is_success"]
        m, d = env.model, env.data
        mujoco.mj_step(m, d, nstep=int(1.0 / m.opt.timestep))
        bottle, site = m.body("wine_bottle_1").id, m.site("wine_rack_1_top_region").id
        axis = d.xmat[bottle].reshape(3, 3)[:, 2]  # the bottle's long axis lies level
        assert abs(axis[2]) < 0.1
        assert on_site(d.xpos[bottle], d.site_xpos[site], d.site_xmat[site], m.site_size[site])
    finally:
        env.close()
