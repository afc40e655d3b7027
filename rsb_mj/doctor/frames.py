"""The fixed reference frames ``rsb doctor`` draws: benchmark scenes as a policy sees them.

Each :class:`ReferenceFrame` is one row of a frozen eval table reset in :class:`RsbEnv` at
:data:`WIDTH` x :data:`HEIGHT` with the ``fast`` preset (what ``rsb eval`` draws by default),
all three cameras. The set covers the blocks with letters of RSB-Math-4, an Act2Answer plate
scene (A2A-Color: plate pictures written into textures) and a V4 visual-perturbation frame
(RSB-General-4: light, colours, camera and seeded sensor noise).

:func:`scene_sha256` hashes what the renderer was given (the compiled model after reset, in
MuJoCo's binary format, and the pose), so a changed golden can be told apart: the scene
changed (scene code, tables, mujoco) or only the pixels did (the renderer).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode
from rsb_mj.workspace import CAMERAS

__all__ = [
    "HEIGHT",
    "QUALITY",
    "REFERENCE_FRAMES",
    "WIDTH",
    "ReferenceFrame",
    "Rendered",
    "render_frame",
    "scene_sha256",
]

#: Size [px] of every reference image.
WIDTH, HEIGHT = 160, 120
#: The render preset of the reference frames.
QUALITY = "fast"


@dataclass(frozen=True)
class ReferenceFrame:
    """One reference scene.

    Attributes:
        name: file stem of its golden image (``<name>.png``).
        source: the suite whose frozen table holds the row.
        index: the eval-table row.
        visual_level: VLA-Arena's visual perturbation level V0-V4.
    """

    name: str
    source: str
    index: int = 0
    visual_level: int = 0

    @property
    def label(self) -> str:
        """``RSB-Math-4 row 0`` (``... V4`` when perturbed)."""
        level = f" V{self.visual_level}" if self.visual_level else ""
        return f"{self.source} row {self.index}{level}"


#: The frames ``rsb doctor`` draws, in order.
REFERENCE_FRAMES: tuple[ReferenceFrame, ...] = (
    ReferenceFrame("rsb_math_4", "RSB-Math-4"),
    ReferenceFrame("a2a_color", "A2A-Color"),
    ReferenceFrame("rsb_general_4_v4", "RSB-General-4", visual_level=4),
)


@dataclass(frozen=True)
class Rendered:
    """The images of one reference frame.

    Attributes:
        frame: what was drawn.
        images: camera -> uint8 (HEIGHT, WIDTH, 3) RGB image, in :data:`CAMERAS` order.
        scene_sha256: :func:`scene_sha256` of the scene after reset.
    """

    frame: ReferenceFrame
    images: dict[str, np.ndarray]
    scene_sha256: str


#: Decimals of the pose in :func:`scene_sha256` (m and rad: 1e-6).
POSE_DECIMALS = 6


def scene_sha256(model: Any, data: Any) -> str:
    """sha256 of the compiled model (``mj_saveModel`` bytes) and of the pose (``qpos``,
    mocap positions and orientations) that the cameras see, rounded to :data:`POSE_DECIMALS`
    decimals (1 um, 1 urad): a start that the expert's IK settles (A2A-Color's cube held in
    the left gripper) differs in its last bits between CPUs, which no camera shows."""
    buffer = np.zeros(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, buffer)
    digest = hashlib.sha256(buffer.tobytes())
    for array in (data.qpos, data.mocap_pos, data.mocap_quat):
        pose = np.round(np.asarray(array, dtype=np.float64), POSE_DECIMALS) + 0.0  # no -0.0
        digest.update(np.ascontiguousarray(pose).tobytes())
    return digest.hexdigest()


def render_frame(frame: ReferenceFrame) -> Rendered:
    """Reset the frame's row in a fresh :class:`RsbEnv` and take its three camera images.

    Raises:
        RsbError: for an unknown suite or a row outside its eval table; whatever the GL
            backend raises when it cannot draw.
    """

    suite = get_suite(frame.source)
    episode = load_episode(suite.name, "eval", frame.index)
    env = RsbEnv(
        suite.path,
        suite=suite.name,
        split="eval",
        cameras=CAMERAS,
        width=WIDTH,
        height=HEIGHT,
        quality=QUALITY,
        visual_level=frame.visual_level,
    )
    try:
        obs, _ = env.reset(options={"episode": episode})
        digest = scene_sha256(env.model, env.data)
    finally:
        env.close()
    images = {camera: np.asarray(obs["images"][camera]) for camera in CAMERAS}
    return Rendered(frame, images, digest)
