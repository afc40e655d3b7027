"""Head-camera figure for docs/protocol.md: what a policy sees of the candidates.

Renders the head camera at reset for two rows (``RSB-Math-10`` eval row 0 and the Beyond
Blocks ``rsb_math_4_objects.bddl`` row 1), each as the 320x240 observation beside the 224x224
policy input (openpi's ``resize_with_pad``), upscaled 2x with nearest-neighbour sampling so
that single pixels stay visible.

Usage: ``python tools/head_camera_figure.py docs/head_camera_after.png`` (the "before"
figure was made with the same script on the commit before the camera was reframed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.legibility import resize_with_pad
from rsb_mj.tables.episode_source import load_episode, task_path

ROWS = (("RSB-Math-10", 0), (str(tasks_dir() / "rsb_math_4_objects.bddl"), 1))
GAP = 8
UPSCALE = 2


def figure() -> np.ndarray:
    """The RGB uint8 figure: one line per row of ROWS, [320x240 | 224x224]."""
    lines = []
    for source, row in ROWS:
        suite = "" if source.endswith(".bddl") else source
        env = RsbEnv(task_path(source), suite=suite, cameras=("head",))
        try:
            obs, _ = env.reset(options={"episode": load_episode(source, "eval", row)})
        finally:
            env.close()
        head = obs["images"]["head"]
        small, _ = resize_with_pad(head)
        line = np.full((240, 320 + GAP + 224, 3), 255, dtype=np.uint8)
        line[:, :320] = head
        line[8 : 8 + 224, 320 + GAP :] = small
        lines.append(line)
    gap = np.full((GAP, lines[0].shape[1], 3), 255, dtype=np.uint8)
    out = np.concatenate([lines[0], gap, lines[1]], axis=0)
    return cv2.resize(out, None, fx=UPSCALE, fy=UPSCALE, interpolation=cv2.INTER_NEAREST)


def main(argv: list[str] | None = None) -> int:
    """Write the figure to the given PNG path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="PNG path")
    args = parser.parse_args(argv)
    ok, png = cv2.imencode(".png", cv2.cvtColor(figure(), cv2.COLOR_RGB2BGR))
    if not ok:
        print(f"could not encode {args.output}", file=sys.stderr)
        return 2
    atomic_write_bytes(args.output, png.tobytes())
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
