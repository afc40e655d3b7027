"""Write the head camera of an episode to an mp4 (OpenCV, 20 fps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.suites import CONTROL_HZ

#: The camera recorded in videos.
VIDEO_CAMERA = "head"


class VideoWriter:
    """Collects ``obs["images"]["head"]`` frames and writes them on :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.frames: list[np.ndarray] = []

    def __call__(self, obs: dict[str, Any]) -> None:
        """Add the head-camera frame of ``obs`` (RGB uint8, H x W x 3)."""
        frame = obs.get("images", {}).get(VIDEO_CAMERA)
        if frame is not None:
            self.frames.append(np.asarray(frame, dtype=np.uint8))

    def close(self) -> None:
        """Encode the frames (mp4v) at the control rate; nothing without frames."""
        if not self.frames:
            return
        import cv2

        self.path.parent.mkdir(parents=True, exist_ok=True)
        h, w = self.frames[0].shape[:2]
        out = cv2.VideoWriter(str(self.path), cv2.VideoWriter_fourcc(*"mp4v"), CONTROL_HZ, (w, h))
        for frame in self.frames:
            out.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
        out.release()
