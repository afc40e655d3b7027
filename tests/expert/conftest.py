"""Shared fixtures: a real ViperX arm model (robosuite-models' Aloha arms) with a table."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
import robosuite_models

ARM_XML = Path(robosuite_models.__file__).parent / "assets" / "robots" / "aloha" / "robot.xml"
RIGHT = tuple(
    f"right/{j}"
    for j in ("waist", "shoulder", "elbow", "forearm_roll", "wrist_angle", "wrist_rotate")
)
#: Gripper pointing straight down (site x axis -> world -z), fingers across world x.
DOWN = np.column_stack([[0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])


def arm_model(obstacle: bool = False) -> mujoco.MjModel:
    """Both Aloha arms (radians), a table top at z = 0 and optionally a post in the way."""
    spec = mujoco.MjSpec.from_file(str(ARM_XML))
    spec.compiler.degree = False
    spec.worldbody.add_geom(
        name="table", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.5, 0.4, 0.02], pos=[0, -0.1, -0.02]
    )
    if obstacle:
        spec.worldbody.add_geom(
            name="post", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.05, 0.05, 0.2], pos=[0, -0.25, 0.2]
        )
    return spec.compile()


@pytest.fixture(scope="session")
def model() -> mujoco.MjModel:
    return arm_model()


@pytest.fixture(scope="session")
def model_with_post() -> mujoco.MjModel:
    return arm_model(obstacle=True)
