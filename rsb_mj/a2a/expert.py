"""The built-in expert on Act2Answer scenes: it moves the cube, not the plate.

The scripted pick-and-place expert (:class:`rsb_mj.expert.PickPlaceExpert`) is given a
*target candidate*; in an A2A scene the candidates are plates, so :func:`retarget` turns
"the target plate" into "grasp the pick cube and place it on that plate's centre": the
expert's world then has the cube as its one candidate body and the plate's top face as its
zone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rsb_mj.lang.a2a import pick_objects
from rsb_mj.scene.categories.answer_plate import HALF_SIZE


def retarget(env: Any, world: Any, target: str) -> str:
    """For an A2A scene, point ``world`` (an :class:`rsb_mj.expert.world.World`) at plate
    ``target`` and return the pick object to grasp; otherwise return ``target`` unchanged.

    The zone becomes the plate's top face: centre at the plate body's current xy (world
    frame, metres), half size :data:`HALF_SIZE` less a 3 cm margin.
    """
    scene = env.unwrapped.scene  # world_of(env) has read it: a reset RsbEnv or its SimView
    picks = pick_objects(scene.problem)
    if not picks or target not in scene.candidates:
        return target
    body = dict(zip(scene.candidates, scene.candidate_bodies, strict=True))[target]
    pos = world.data.xpos[world.model.body(body).id]
    world.zone_center = np.array([pos[0], pos[1], world.table_top_z])
    world.zone_half = np.array([HALF_SIZE[0] - 0.03, HALF_SIZE[1] - 0.03])
    world.candidate_bodies = {picks[0]: picks[0]}
    return picks[0]
