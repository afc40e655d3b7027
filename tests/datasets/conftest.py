"""Fixtures for the LeRobot export tests: small demonstration folders."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.datasets.demo_file import episode_filename, write_demo
from rsb_mj.tables.families import load_table

#: Size of the synthetic frames [px].
HEIGHT, WIDTH = 48, 64
CAMERAS = ("head", "left_wrist", "right_wrist")


def synthetic_frames(episode: int, camera: int, length: int) -> list[np.ndarray]:
    """Smooth RGB gradients that move with the frame index (compress well, decode close)."""
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    return [
        np.stack(
            [
                (xx * 3 + 10 * t) % 256,
                (yy * 4 + 40 * camera) % 256,
                np.full_like(xx, (60 * episode + 5 * t) % 256),
            ],
            axis=-1,
        ).astype(np.uint8)
        for t in range(length)
    ]


@pytest.fixture(scope="session")
def synthetic_demos(tmp_path_factory):
    """Three demonstrations of RSB-Math-4 train rows 0-2 (7, 5, 6 frames; the third a
    failure), written with the real demo writer, synthetic states, actions and frames."""
    out = tmp_path_factory.mktemp("demos")
    rows = load_table("RSB-Math-4", "train")
    for i, (length, success) in enumerate(((7, True), (5, True), (6, False))):
        ep = rows[i]
        states = np.arange(length * 14, dtype=np.float64).reshape(length, 14) / 100 + i
        write_demo(
            out / episode_filename(i),
            episode=ep,
            instruction=ep.instruction,
            states=states,
            actions=states + 0.5,
            images={cam: synthetic_frames(i, c, length) for c, cam in enumerate(CAMERAS)},
            attrs={
                "success": success,
                "grasped": True,
                "failure": "" if success else "x",
                "rationale": f"rationale of row {i}",
            },
        )
    return out
