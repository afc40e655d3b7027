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

from rsb_mj.errors import ExpertError, RsbError
from rsb_mj.expert.collision import subtree_bodies
from rsb_mj.expert.hazards import hazard_clearances
from rsb_mj.lang.ast import Problem
from rsb_mj.scene.aloha import finger_joints, finger_to_gripper
from rsb_mj.scene.footprint import footprint
from rsb_mj.scoring.placement import Placement, goal_placement


@dataclass
class World:
    """The expert's view of one reset environment.

    Attributes:
        model: the compiled model.
        data: the live data (read only by the expert).
        table_top_z: world z of the table top [m].
        zone_center: where the expert puts the object it moves: the answer-zone center, or
            the center of the candidate it puts the object on (:meth:`aim_onto`), world
            frame on the table top [m], shape (3,).
        zone_half: that place's half size in x, y [m], shape (2,).
        candidate_bodies: candidate object name -> its body name in the model.
        seed: the episode seed.
        hazards: geom id -> clearance [m] of the objects the task's ``:cost`` names
            (:mod:`rsb_mj.expert.hazards`); empty without a ``:cost``.
        problem: the task (its ``:goal`` says what moves where, :meth:`aim`), or None.
        held: object -> the arm holding it since reset (the env's ``start_hold``).
    """

    model: mujoco.MjModel
    data: mujoco.MjData
    table_top_z: float
    zone_center: np.ndarray
    zone_half: np.ndarray
    candidate_bodies: dict[str, str]
    seed: int
    hazards: dict[int, float] = field(default_factory=dict)
    problem: Problem | None = None
    held: dict[str, str] = field(default_factory=dict)

    def body_geoms(self, body: str) -> tuple[int, ...]:
        """Geom ids of ``body`` and its children."""
        bodies = subtree_bodies(self.model, self.model.body(body).id)
        return tuple(g for g in range(self.model.ngeom) if int(self.model.geom_bodyid[g]) in bodies)

    def aim(self, target: str) -> str:
        """Aim at what the goal asks for candidate ``target`` (:mod:`rsb_mj.scoring.placement`)
        and return the body to move: ``(In ?answer zone)`` moves the candidate into the
        answer zone, ``(On cube ?answer)`` the cube onto the candidate (:meth:`aim_onto`).

        Raises:
            ExpertError: when ``target`` is no candidate or the goal has no place.
        """
        if target not in self.candidate_bodies:
            raise ExpertError(
                f"target {target!r} is not a candidate; valid choices: "
                f"{', '.join(self.candidate_bodies)}"
            )
        place = Placement(target)  # a task without a goal: the target into the zone
        if self.problem is not None and self.problem.goal is not None:
            try:
                place = goal_placement(self.problem, target)
            except RsbError as exc:
                raise ExpertError(str(exc)) from None
        if place.onto is not None:
            self.aim_onto(self.candidate_bodies[place.onto])
        return self.candidate_bodies.get(place.mover, place.mover)

    def aim_onto(self, body: str) -> None:
        """Put the moved object on ``body`` instead of the answer zone: the zone becomes the
        body's footprint (:mod:`rsb_mj.scene.footprint`) at its current pose."""
        bid = self.model.body(body).id
        fp = footprint(self.model, body)
        rot = self.data.xmat[bid].reshape(3, 3)
        center = self.data.xpos[bid][:2] + rot[:2, :2] @ fp.center
        self.zone_center = np.array([center[0], center[1], self.table_top_z])
        self.zone_half = fp.half.copy()

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
    # A bare env (scripts, tests, the env's held start) has its episode and so its seed; a
    # policy's SimView (rsb_mj.env.views) has no episode, only a seed of its own.
    episode = getattr(u, "episode", None)
    seed = episode.seed if episode is not None else u.seed
    return World(
        model=u.model,
        data=u.data,
        table_top_z=float(scene.table_top_z),
        zone_center=zone_c,
        zone_half=np.asarray(scene.zone_half_size, float)[:2],
        candidate_bodies=bodies,
        seed=int(seed),
        hazards=hazard_clearances(u.model, scene.problem),
        problem=scene.problem,
        held=dict(getattr(u, "start_hold", None) or {}),
    )
