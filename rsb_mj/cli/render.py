"""``rsb render TASK --seed N -o out.png``: the head and wrist views of one episode, side by side.

TASK is a task file path or a suite name (``RSB-Math-4``). The episode is the one
``RsbEnv.reset(seed=N)`` draws; its instruction is printed. For task authors checking a layout.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rsb_mj.errors import RsbError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``render`` subcommand."""
    parser = subparsers.add_parser(
        "render",
        help="render the head and wrist views of one episode of a task",
        description="Render the head and wrist camera views of the episode drawn with --seed "
        "into one PNG (side by side). Exit 0 on success, 2 on a usage or task error.",
    )
    parser.add_argument("task", metavar="TASK", help="task file (*.bddl) or suite name")
    parser.add_argument("--seed", type=int, default=0, help="reset seed (0)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="output PNG path")
    parser.add_argument("--width", type=int, default=320, help="image width per view [px] (320)")
    parser.add_argument("--height", type=int, default=240, help="image height [px] (240)")
    parser.add_argument("--quality", choices=("fast", "full"), default="fast", help="(fast)")
    parser.add_argument("--split", choices=("train", "eval"), default="eval", help="(eval)")
    parser.set_defaults(func=run)


def resolve_task(task: str) -> tuple[Path, str]:
    """(task file, suite name) for a path or a suite name.

    Raises:
        RsbError: when ``task`` is neither an existing file nor a suite name.
    """
    path = Path(task)
    if path.is_file():
        return path, ""
    from rsb_mj.suites import get_suite

    try:
        suite = get_suite(task)
    except RsbError:
        raise RsbError(f"{task}: no such task file, and not a suite name") from None
    return suite.path, suite.name


def run(args: argparse.Namespace) -> int:
    """Run ``rsb render``; returns the exit status."""
    import cv2
    import numpy as np

    from rsb_mj.env.rsb_env import RsbEnv

    path, suite = resolve_task(args.task)
    env = RsbEnv(
        path,
        suite=suite,
        split=args.split,
        width=args.width,
        height=args.height,
        quality=args.quality,
    )
    try:
        obs, info = env.reset(seed=args.seed)
    finally:
        env.close()
    strip = np.concatenate([obs["images"][c] for c in ("head", "left_wrist", "right_wrist")], 1)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(args.output), cv2.cvtColor(strip, cv2.COLOR_RGB2BGR)):
        raise RsbError(f"{args.output}: could not write the image (use a .png name)")
    print(info["instruction"])
    print(f"wrote {args.output} ({strip.shape[1]}x{strip.shape[0]}, head | left | right wrist)")
    return 0
