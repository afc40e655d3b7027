"""Where a placement's mover comes to rest (rsb_mj.expert.support) on shipped goal files:
several movers put On one site stand side by side in it."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.expert.support import SHARED_SPREAD
from rsb_mj.scoring.predicates.on import on_site

from .goal_play import LIBERO

BOTH_MOKA_POTS = LIBERO / "libero_10" / "KITCHEN_SCENE8_put_both_moka_pots_on_the_stove.bddl"


def test_both_moka_pots_stand_side_by_side_on_the_cook_region_and_the_lit_stove_is_left_on():
    """libero_10's "put both moka pots on the stove" (seed 0): the stove is on at :init, so
    its knob is not turned again (the goal's TurnOn holds already); each pot goes
    SHARED_SPREAD of the 0.075 m cook region's half size from its centre across the pots'
    narrow side (world y on this seed), so the second no longer lands on the first. The
    goal holds."""
    env = GoalEnv(BOTH_MOKA_POTS, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        terminated = truncated = False
        phases: set[str] = set()
        while not (terminated or truncated):
            obs, _, terminated, truncated, info = env.step(expert.act(obs))
            phases.add(expert.phase)
        assert info["is_success"], expert.failure
        assert expert.failure is None
        assert not any(p.startswith("turnon") for p in phases)
        m, d = env.model, env.data
        sid = m.site("flat_stove_1_cook_region").id
        pots = [d.body(f"moka_pot_{k}").xpos.copy() for k in (1, 2)]
        for pot in pots:
            assert on_site(pot, d.site_xpos[sid], d.site_xmat[sid], m.site_size[sid])
        apart = np.sort(np.abs(pots[0][:2] - pots[1][:2]))
        spread = 2 * SHARED_SPREAD * float(m.site_size[sid][0])
        assert spread == pytest.approx(0.09)
        assert abs(apart[1] - spread) < 0.01  # 0.09 m apart along one axis, as aimed
        assert apart[0] < 0.01
    finally:
        env.close()
