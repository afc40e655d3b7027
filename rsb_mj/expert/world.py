"""What the expert reads from the environment: a small adapter over ``env.unwrapped``.

The expert is privileged: it reads the simulator (``model``, ``data``), the compiled scene
(answer zone, table height, candidate bodies) and the episode seed. :func:`world_of` gathers
them so the rest of the expert never depends on the environment's attribute names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mujoco
import numpy as np

from rsb_mj.env.views import SimView
from rsb_mj.expert.collision import subtree_bodies
from rsb_mj.expert.hazards import hazard_clearances
from rsb_mj.scene.aloha import finger_joints, finger_to_gripper


@dataclass
class World:
    """The expert's view of one reset environment.

    Attributes:
        model: the compiled model.
        data: the live data (read only by the expert).
        table_top_z: world z of the table top [m].
        zone_center: answer-zone center, world frame [m], shape (3,).
        zone_half: answer-zone half size in x, y [m], shape (2,).
        candidate_bodies: candidate object name -> its body name in the model.
        seed: the episode seed.
        hazards: geom id -> clearance [m] of the objects the task's ``:cost`` names
            (:mod:`rsb_mj.expert.hazards`); empty without a ``:cost``.
    """

    model: mujoco.MjModel
    data: mujoco.MjData
    table_top_z: float
    zone_center: np.ndarray
    zone_half: np.ndarray
    candidate_bodies: dict[str, str]
    seed: int
    hazards: dict[int, float] = field(default_factory=dict)

    def body_geoms(self, body: str) -> tuple[int, ...]:
        """Geom ids of ``body`` and its children."""
        bodies = subtree_bodies(self.model, self.model.body(body).id)
        return tuple(g for g in range(self.model.ngeom) if int(self.model.geom_bodyid[g]) in bodies)

    def gripper_opening(self, side: str) -> float:
        """Measured normalized opening of ``side``'s gripper (0 closed .. 1 open)."""
        adr = [self.model.joint(j).qposadr[0] for j in finger_joints(side)]
        return float(np.mean(finger_to_gripper(self.data.qpos[adr])))


def world_of(env: Any) -> World:
    """The :class:`World` of a reset :class:`rsb_mj.env.RsbEnv` (or a wrapper of one)."""
    u = env.unwrapped
    scene = u.scene
    zone_c = np.asarray(scene.zone_center, float)
    if zone_c.shape == (2,):
        zone_c = np.array([zone_c[0], zone_c[1], scene.table_top_z])
    bodies = dict(zip(scene.candidates, scene.candidate_bodies, strict=True))
    # A policy's SimView carries its own seed; a bare env (scripts, tests) the episode's.
    seed = u.seed if isinstance(u, SimView) else u.episode.seed
    return World(
        model=u.model,
        data=u.data,
        table_top_z=float(scene.table_top_z),
        zone_center=zone_c,
        zone_half=np.asarray(scene.zone_half_size, float)[:2],
        candidate_bodies=bodies,
        seed=int(seed),
        hazards=hazard_clearances(u.model, scene.problem),
    )
