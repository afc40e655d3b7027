"""MP4 (H.264) encoding and decoding of camera frames with PyAV (the ``lerobot`` extra).

Frames are encoded with ``libx264``, ``yuv420p``, a keyframe every 2 frames (as LeRobot
encodes, for fast random access), no B-frames (so the presentation time of frame ``k`` is
exactly ``k / fps`` and decoders need no edit list) and one encoder thread (same frames,
same bytes).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from rsb_mj.errors import RsbError

CODEC = "libx264"
#: Name of the codec as decoders report it (``video.codec`` in LeRobot's ``info.json``).
CODEC_NAME = "h264"
PIX_FMT = "yuv420p"
#: Constant rate factor of x264 (lower is better quality; 18 is visually lossless).
CRF = 18
#: Group of pictures [frames].
GOP = 2


def _av():
    try:
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
    av = _av()
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


def decode_mp4(data_or_path: bytes | str, *, with_times: bool = False):
    """Decode an MP4 into RGB uint8 frames ``(T, H, W, 3)``.

    With ``with_times``, also returns each frame's presentation time [s] as float64 ``(T,)``.
    """
    av = _av()
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
    av = _av()
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
