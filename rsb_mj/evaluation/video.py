"""Write the head camera of an episode to an MP4 that plays in a browser, atomically.

:func:`encode_mp4` encodes with PyAV: ``libx264``, ``yuv420p``, a keyframe every 2 frames
(as LeRobot encodes, for fast random access), no B-frames (so the presentation time of frame
``k`` is exactly ``k / fps`` and decoders need no edit list) and one encoder thread (same
frames, same bytes). Episode videos (``rsb eval --video``) and LeRobot datasets
(:mod:`rsb_mj.datasets.lerobot`) use it alike. Without PyAV an episode video falls back to
OpenCV's MPEG-4 (``mp4v``, which browsers do not play) with a warning on stderr.

The video is written into a hidden temporary file beside the target and renamed into place
once complete, so an existing ``.mp4`` is always whole; a failure names the path.
"""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rsb_mj.atomic import WriteError, atomic_write_bytes
from rsb_mj.errors import RsbError
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.tables.episode_source import is_task_file

CODEC = "libx264"
#: Name of the codec as decoders report it (``video.codec`` in LeRobot's ``info.json``).
CODEC_NAME = "h264"
PIX_FMT = "yuv420p"
#: Constant rate factor of x264 (lower is better quality; 18 is visually lossless).
CRF = 18
#: Group of pictures [frames].
GOP = 2


def pyav() -> Any:
    """The ``av`` module (PyAV).

    Raises:
        RsbError: naming how to install it.
    """
    try:
        # heavy: av (the video extra)
        import av
    except ImportError:
        raise RsbError(
            "writing videos needs PyAV: pip install 'rsb_mj[lerobot-export]' (or pip install av)"
        ) from None
    return av


def encode_mp4(frames: Iterable[np.ndarray], fps: int) -> bytes:
    """H.264 MP4 bytes of RGB uint8 ``(H, W, 3)`` frames at ``fps`` [Hz].

    Frame ``k`` is presented at ``k / fps`` seconds. Height and width must be even
    (``yuv420p``).

    Raises:
        RsbError: for no frames, odd or changing sizes, or PyAV missing.
    """
    av = pyav()
    buf = io.BytesIO()
    container = av.open(buf, mode="w", format="mp4")
    stream = None
    for count, frame in enumerate(frames):
        frame = np.ascontiguousarray(frame, dtype=np.uint8)
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise RsbError(f"video frame {count} has shape {frame.shape}; expected (H, W, 3)")
        h, w = frame.shape[:2]
        if stream is None:
            if h % 2 or w % 2:
                raise RsbError(f"video frames are {w}x{h} px; {PIX_FMT} needs even sizes")
            stream = container.add_stream(CODEC, rate=fps)
            stream.width, stream.height, stream.pix_fmt = w, h, PIX_FMT
            stream.time_base = Fraction(1, fps)
            stream.codec_context.time_base = Fraction(1, fps)
            stream.codec_context.gop_size = GOP
            stream.codec_context.max_b_frames = 0
            stream.codec_context.thread_count = 1
            stream.codec_context.options = {"crf": str(CRF), "preset": "medium"}
        elif (h, w) != (stream.height, stream.width):
            raise RsbError(
                f"video frame {count} is {w}x{h} px; earlier frames are "
                f"{stream.width}x{stream.height}"
            )
        vf = av.VideoFrame.from_ndarray(frame, format="rgb24")
        vf.pts = count
        vf.time_base = Fraction(1, fps)
        container.mux(stream.encode(vf))
    if stream is None:
        container.close()
        raise RsbError("no video frames to encode")
    container.mux(stream.encode(None))
    container.close()
    return buf.getvalue()


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


#: The mp4v fallback's warning was printed (once per process).
_WARNED = False


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
        """Encode the frames (H.264, :func:`encode_mp4`; ``mp4v`` without PyAV) at the
        control rate; nothing without frames.

        Raises:
            WriteError: when the file cannot be written (names the path and the cause).
        """
        if not self.frames:
            return
        try:
            pyav()
        except RsbError:
            self._close_mp4v()
            return
        h, w = self.frames[0].shape[:2]
        even = [f[: h - h % 2, : w - w % 2] for f in self.frames]  # yuv420p: even sizes
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WriteError(f"{self.path}: cannot write ({exc.strerror or exc})") from None
        atomic_write_bytes(self.path, encode_mp4(even, CONTROL_HZ))

    def _close_mp4v(self) -> None:
        global _WARNED
        if not _WARNED:
            _WARNED = True
            print(
                "rsb: warning: PyAV is not installed: episode videos are MPEG-4 (mp4v), which "
                "browsers do not play; pip install av for H.264",
                file=sys.stderr,
            )

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
