"""Make ``docs/levels_visual.png``: the head view of one episode at task-structure levels L0,
L1, L2 (rows) and visual levels V0..V4 (columns), each panel labelled.

Usage: ``MUJOCO_GL=egl PYTHONPATH=$PWD python tools/levels_figure.py [--suite RSB-Math-4]
[--row 1] [--out docs/levels_visual.png]`` (the episode is row ``--row`` of each level's eval
table: the same question and candidate layout at every level).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.suites import get_suite
from rsb_mj.tables import load_table

#: One panel's size [px] (the head camera's default 4:3).
WIDTH, HEIGHT = 256, 192


def panel(suite: str, row: int, visual_level: int) -> np.ndarray:
    """The head image of ``row`` of ``suite``'s eval table at ``visual_level``, labelled."""
    s = get_suite(suite)
    env = RsbEnv(
        s.path,
        suite=s.name,
        cameras=("head",),
        width=WIDTH,
        height=HEIGHT,
        quality="full",
        visual_level=visual_level,
    )
    try:
        obs, _ = env.reset(options={"episode": load_table(s.name)[row]})
    finally:
        env.close()
    image = np.ascontiguousarray(obs["images"]["head"])
    label = f"L{s.level} V{visual_level}"
    cv2.putText(image, label, (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, label, (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1)
    return image


def main(argv: list[str] | None = None) -> int:
    """Write the figure; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="RSB-Math-4")
    parser.add_argument("--row", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("docs/levels_visual.png"))
    args = parser.parse_args(argv)
    base = get_suite(args.suite).base_name
    names = [base, f"{base}-L1", f"{base}-L2"]
    grid = [np.concatenate([panel(n, args.row, v) for v in range(5)], 1) for n in names]
    image = cv2.cvtColor(np.concatenate(grid, 0), cv2.COLOR_RGB2BGR)
    ok, data = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        print("could not encode the figure")
        return 1
    atomic_write_bytes(args.out, data.tobytes())
    print(f"wrote {args.out} ({image.shape[1]}x{image.shape[0]}: rows L0-L2, columns V0-V4)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
