"""Head-camera frames of a recorded episode, as small inline JPEGs for the page.

``rsb eval --video INDEX`` writes the head camera of an episode as an H.264 MP4, one frame
per control step (frame 0 at reset; :mod:`rsb_mj.evaluation.video`). The page shows a strip
of frames taken from the file (OpenCV decodes it here) and links the file itself, which a
browser plays.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Frame", "video_frames"]

#: Frames taken from a video, evenly spaced from the first to the last.
FRAMES = 8
#: Width of a frame in the page [px] (the height keeps the aspect ratio).
WIDTH = 160
#: JPEG quality of the inline frames (0-100).
QUALITY = 80


@dataclass(frozen=True)
class Frame:
    """One frame: the control step it shows (0 = after reset) and a ``data:`` JPEG URL."""

    step: int
    url: str


def video_frames(path: Path, count: int = FRAMES, width: int = WIDTH) -> list[Frame]:
    """``count`` evenly spaced frames of the video at ``path`` (all of them when it has
    fewer), scaled to ``width`` pixels; ``[]`` when OpenCV cannot read the file.

    The file is read twice (frames counted with ``grab``, then the chosen ones decoded), so
    only the chosen frames are held in memory.
    """
    import cv2

    cap = cv2.VideoCapture(str(path))
    n = 0
    while cap.grab():
        n += 1
    cap.release()
    if n == 0:
        return []
    picks = {round(i * (n - 1) / max(1, count - 1)) for i in range(min(count, n))}
    out = []
    cap = cv2.VideoCapture(str(path))
    try:
        for step in range(max(picks) + 1):
            if step not in picks:
                if not cap.grab():
                    break
                continue
            ok, image = cap.read()
            if not ok:
                break
            h, w = image.shape[:2]
            size = (width, max(1, round(h * width / w)))
            small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
            if ok:
                url = "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode("ascii")
                out.append(Frame(step, url))
    finally:
        cap.release()
    return out
