"""What the expert reads from the environment: a small adapter over ``env.unwrapped``.

The expert is privileged: it reads the simulator (``model``, ``data``), the compiled scene
(table height, the ``:cost`` hazards) and the episode seed. :func:`world_of` gathers
them so the rest of the expert never depends on the environment's attribute names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mujoco
import numpy as np

from rsb_mj.expert.collision import subtree_bodies
from rsb_mj.expert.hazards import hazard_clearances
from rsb_mj.scene.aloha import finger_joints, finger_to_gripper
from rsb_mj.scene.footprint import footprint


@dataclass
class World:
    """The expert's view of one reset environment.

    What to move and where is not here: the expert is told its placements
    (:mod:`rsb_mj.expert.placements`).

    Attributes:
        model: the compiled model.
        data: the live data (read only by the expert).
        table_top_z: world z of the table top [m].
        seed: the episode seed.
        hazards: geom id -> clearance [m] of the objects the task's ``:cost`` names
            (:mod:`rsb_mj.expert.hazards`); empty without a ``:cost``.
        held: object -> the arm holding it since reset (the env's ``start_hold``).
    """

    model: mujoco.MjModel
    data: mujoco.MjData
    table_top_z: float
    seed: int
    hazards: dict[int, float] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)

    def body_geoms(self, body: str) -> tuple[int, ...]:
        """Geom ids of ``body`` and its children."""
        bodies = subtree_bodies(self.model, self.model.body(body).id)
        return tuple(g for g in range(self.model.ngeom) if int(self.model.geom_bodyid[g]) in bodies)

    def footprint_at(self, body: str) -> tuple[np.ndarray, np.ndarray]:
        """Where an object put on ``body`` goes: the body's footprint
        (:mod:`rsb_mj.scene.footprint`) at its current pose, as its centre on the table top
        (world xyz [m], shape (3,)) and its half sizes in x, y [m] (shape (2,))."""
        bid = self.model.body(body).id
        fp = footprint(self.model, body)
        rot = self.data.xmat[bid].reshape(3, 3)
        center = self.data.xpos[bid][:2] + rot[:2, :2] @ fp.center
        return np.array([center[0], center[1], self.table_top_z]), fp.half.copy()

    def gripper_opening(self, side: str) -> float:
        """Measured normalized opening of ``side``'s gripper (0 closed .. 1 open)."""
        adr = [self.model.joint(j).qposadr[0] for j in finger_joints(side)]
        return float(np.mean(finger_to_gripper(self.data.qpos[adr])))


def world_of(env: Any) -> World:
    """The :class:`World` of a reset :class:`rsb_mj.env.RsbEnv` (or a wrapper of one)."""
    u = env.unwrapped
    scene = u.scene
    try:  # a bare env (scripts, tests, the env's held start): the seed of its episode
        seed = u.episode.seed
    except AttributeError:  # a policy's SimView (rsb_mj.env.views): no episode, its own seed
        seed = u.seed
    return World(
        model=u.model,
        data=u.data,
        table_top_z=float(scene.table_top_z),
        seed=int(seed),
        hazards=hazard_clearances(u.model, scene.problem),
        held=dict(getattr(u, "start_hold", None) or {}),
    )
