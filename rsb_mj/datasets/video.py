"""Decoding and probing MP4 (H.264) camera videos with PyAV; they are encoded by
:func:`rsb_mj.evaluation.video.encode_mp4` (episode videos and LeRobot datasets alike)."""

from __future__ import annotations

import io

import numpy as np

from rsb_mj.evaluation.video import pyav


def decode_mp4(data_or_path: bytes | str, *, with_times: bool = False):
    """Decode an MP4 into RGB uint8 frames ``(T, H, W, 3)``.

    With ``with_times``, also returns each frame's presentation time [s] as float64 ``(T,)``.
    """
    av = pyav()
    src = io.BytesIO(data_or_path) if isinstance(data_or_path, bytes) else str(data_or_path)
    frames, times = [], []
    with av.open(src) as container:
        for vf in container.decode(video=0):
            frames.append(vf.to_ndarray(format="rgb24"))
            times.append(float(vf.pts * vf.time_base))
    out = np.stack(frames) if frames else np.zeros((0, 0, 0, 3), np.uint8)
    return (out, np.array(times)) if with_times else out


def probe_mp4(path: str) -> dict[str, object]:
    """Codec, pixel format, size, frame rate [Hz] and frame count of an MP4's first video
    stream, as read by FFmpeg through PyAV."""
    av = pyav()
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        ctx = stream.codec_context
        return {
            "codec": ctx.name,
            "pix_fmt": ctx.pix_fmt,
            "width": ctx.width,
            "height": ctx.height,
            "fps": float(stream.average_rate) if stream.average_rate else 0.0,
            "frames": stream.frames,
            "has_audio": bool(container.streams.audio),
        }
