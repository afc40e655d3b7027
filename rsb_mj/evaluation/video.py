"""Write the head camera of an episode to an mp4 (OpenCV, 20 fps), atomically.

The video is encoded into a hidden temporary file beside the target and renamed into place
once complete, so an existing ``.mp4`` is always whole; a failure names the path.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.atomic import WriteError
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.tables.episode_source import is_task_file

#: The camera recorded in videos.
VIDEO_CAMERA = "head"
#: Folder of the videos inside a run directory.
VIDEOS_DIR = "videos"


def video_file(source: str, policy: str, split: str, index: int, variant: str = "original") -> str:
    """File name of an episode's video in ``<run>/videos/`` (``rsb eval --video INDEX``).

    >>> video_file("RSB-Math-4", "my/pol.py:make", "eval", 7, "blank")
    'RSB-Math-4_my_pol.py_make_eval_0007_blank.mp4'

    Args:
        source: a suite name or a task file path (its stem is used).
        policy: the policy spec as the record names it.
        split, index: the row; variant: the record's instruction variant.
    """
    tag = "" if variant == "original" else f"_{variant}"
    stem = Path(source).stem if is_task_file(source) else source
    return f"{stem}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', policy)}_{split}_{index:04d}{tag}.mp4"


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
        """Encode the frames (mp4v) at the control rate; nothing without frames.

        Raises:
            WriteError: when the file cannot be written (names the path and the cause).
        """
        if not self.frames:
            return
        import cv2

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(
                prefix=f".{self.path.stem}.", suffix=".mp4", dir=self.path.parent
            )
            os.close(fd)
        except OSError as exc:
            raise WriteError(f"{self.path}: cannot write ({exc.strerror or exc})") from None
        tmp = Path(name)
        try:
            h, w = self.frames[0].shape[:2]
            fourcc = cv2.VideoWriter_fourcc(*"mp4v")
            out = cv2.VideoWriter(str(tmp), fourcc, CONTROL_HZ, (w, h))
            if not out.isOpened():
                raise WriteError(f"{self.path}: cannot write (OpenCV could not open an mp4 writer)")
            for frame in self.frames:
                out.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
            out.release()
            if tmp.stat().st_size == 0:
                raise WriteError(f"{self.path}: cannot write (OpenCV wrote no data)")
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)
        except OSError as exc:
            raise WriteError(f"{self.path}: cannot write ({exc.strerror or exc})") from None
        finally:
            tmp.unlink(missing_ok=True)
