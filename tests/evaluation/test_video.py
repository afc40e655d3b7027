"""Episode videos play in a browser: H.264, yuv420p, one frame per control step."""

from __future__ import annotations

import numpy as np

from rsb_mj.datasets.video import decode_mp4, probe_mp4
from rsb_mj.evaluation.video import VideoWriter, video_file
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.reporting.html.frames import video_frames


def test_an_episode_video_is_h264_yuv420p_and_keeps_every_frame(tmp_path):
    path = tmp_path / "videos" / video_file("RSB-Math-4", "expert", "eval", 3)
    writer = VideoWriter(path)
    for k in range(12):
        frame = np.zeros((241, 320, 3), np.uint8)  # an odd height is cropped to even
        frame[:, :, 0] = 20 * k
        writer({"images": {"head": frame}})
    writer.close()
    assert probe_mp4(str(path)) == {
        "codec": "h264", "pix_fmt": "yuv420p", "width": 320, "height": 240,
        "fps": float(CONTROL_HZ), "frames": 12, "has_audio": False,
    }  # fmt: skip
    frames = decode_mp4(str(path))
    assert frames.shape == (12, 240, 320, 3)
    assert np.abs(frames[:, :, :, 0].mean(axis=(1, 2)) - 20 * np.arange(12)).max() < 3
    assert len(video_frames(path)) == 8  # the report's strip decodes it too
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
