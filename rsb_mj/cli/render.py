"""``rsb render TASK --seed N -o out.png``: the head and wrist views of one episode, side by side.

TASK is a task file path or a suite name (``RSB-Math-4``). The episode is the one
``RsbEnv.reset(seed=N)`` draws; its instruction is printed. For task authors checking a layout.

A goal task (a LIBERO / VLA-Arena style file, no ``(:question ...)``) renders the same way
(its environment, :class:`rsb_mj.env.rsb_env.RsbEnv`, built by
:func:`rsb_mj.env.task_env.task_env`; its head camera framed for the task,
:mod:`rsb_mj.scene.framing`): a file's ``--seed N`` draws the layout of seed N; a row of a
shipped goal suite is named as ``rsb eval`` names it, ``SUITE::FILE`` (FILE under ``tasks/``,
e.g. ``libero-layouts::libero/libero_goal/put_the_bowl_on_the_plate.bddl``), and ``--row K``
picks row K of that file's frozen ``--split`` table (its seed and layout).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.cli._flags import add_level, add_out
from rsb_mj.errors import RsbError
from rsb_mj.lock import make_folder
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import get_suite
from rsb_mj.workspace import CAMERAS


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``render`` subcommand."""
    parser = subparsers.add_parser(
        "render",
        help="render the head and wrist views of one episode of a task",
        description="Render the head and wrist camera views of the episode drawn with --seed "
        "into one PNG (side by side). Exit 0 on success, 2 on a usage or task error.",
    )
    parser.add_argument(
        "task",
        metavar="TASK",
        help="task file (*.bddl), suite name, or a goal suite's file as SUITE::FILE",
    )
    parser.add_argument("--seed", type=int, default=None, help="reset seed (0)")
    parser.add_argument(
        "--row",
        type=int,
        default=None,
        help="row of a goal suite's frozen table, for TASK as SUITE::FILE (0)",
    )
    add_out(parser, "output PNG path", required=True, dest="output", old=("--output",))
    parser.add_argument("--width", type=int, default=320, help="image width per view [px] (320)")
    parser.add_argument("--height", type=int, default=240, help="image height [px] (240)")
    parser.add_argument("--quality", choices=("fast", "full"), default="fast", help="(fast)")
    parser.add_argument("--split", choices=("train", "eval"), default="eval", help="(eval)")
    parser.add_argument(
        "--visual-level",
        choices=("0", "1", "2", "3", "4", "all"),
        default="0",
        metavar="K",
        help="visual perturbation V0-V4, or 'all': the five levels, one row each (0)",
    )
    add_level(parser, "language", "language perturbation W0-W4 of the printed instruction (0)")
    parser.set_defaults(func=run)


def resolve_task(task: str) -> tuple[Path, str]:
    """(task file, suite name) for a path or a suite name.

    Raises:
        RsbError: when ``task`` is neither an existing file nor a suite name.
    """
    path = Path(task)
    if path.is_file():
        return path, ""

    try:
        suite = get_suite(task)
    except RsbError:
        raise RsbError(f"{task}: no such task file, and not a suite name") from None
    return suite.path, suite.name


#: Image types ``-o`` may name (OpenCV encoders).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


def check_args(args: argparse.Namespace) -> None:
    """Refuse bad arguments before building anything.

    Raises:
        RsbError: naming the flag, the value and the valid range or choices.
    """
    # deferred: rsb --help imports every command module, not MuJoCo
    from rsb_mj.env.cameras import MAX_SIDE

    if args.seed is not None and args.seed < 0:
        raise RsbError(f"--seed {args.seed}: must be a non-negative integer")
    if args.row is not None and args.row < 0:
        raise RsbError(f"--row {args.row}: must be a non-negative integer")
    for flag, value in (("--width", args.width), ("--height", args.height)):
        if not 1 <= value <= MAX_SIDE:
            raise RsbError(f"{flag} {value}: must be 1..{MAX_SIDE} pixels")
    suffix = args.output.suffix.lower()
    if suffix not in IMAGE_SUFFIXES:
        raise RsbError(
            f"{args.output}: unsupported image type {suffix or '(none)'!r}; "
            f"valid choices: {', '.join(IMAGE_SUFFIXES)}"
        )
    if args.output.is_dir():
        raise RsbError(f"{args.output}: is a folder; name an image file")


def render_source(task: str, row: int | None, seed: int | None) -> str:
    """The source TASK names, as a run's jobs name it: a goal suite's ``SUITE::FILE`` as
    its row source (:func:`~rsb_mj.tables.episode_source.goal_row_source`), a suite by its
    own name, a task file as given (which environment it gets is the environment stage's
    choice, :func:`rsb_mj.env.task_env.task_env`).

    Raises:
        RsbError: for ``--row`` with anything but ``SUITE::FILE``, ``--seed`` with it, an
            unknown goal suite or file, or a TASK that is neither a file nor a suite.
    """
    # deferred: rsb --help imports every command module, not the task language
    from rsb_mj.suites import goal_suite
    from rsb_mj.tables.episode_source import goal_row_source, split_goal_row_source

    parts = split_goal_row_source(task)
    if parts is None:
        if row is not None:
            raise RsbError(
                f"--row {row}: only for a goal suite's file, TASK as SUITE::FILE "
                "(e.g. libero-layouts::libero/libero_goal/put_the_bowl_on_the_plate.bddl)"
            )
        _, suite = resolve_task(task)  # a file, else a suite (refused when neither)
        return suite or task
    if seed is not None:
        raise RsbError(f"--seed {seed}: a goal suite's row has its seed; use --row")
    suite = goal_suite(parts[0])
    if suite is None:
        # deferred: as above
        from rsb_mj.suites import GOAL_SUITES

        raise RsbError(
            f"{task}: unknown goal suite {parts[0]!r}; valid choices: {', '.join(GOAL_SUITES)}"
        )
    path = tasks_dir() / parts[1]
    if not path.is_file():
        raise RsbError(f"{task}: no task file {parts[1]!r} under {tasks_dir()}")
    return goal_row_source(suite.name, path)


def _first_obs(args: argparse.Namespace, source: str, level: int) -> tuple[dict, dict]:
    """The first observation and info of the episode TASK names at visual level ``level``:
    a goal suite row's (its seed and frozen layout), else the one ``--seed`` draws."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.env.task_env import task_env
    from rsb_mj.tables.episode_source import load_episode, split_goal_row_source

    env = task_env(
        source,
        split=args.split,
        width=args.width,
        height=args.height,
        quality=args.quality,
        visual_level=level,
        language_level=args.language_level,
    )
    try:
        if split_goal_row_source(source) is not None:
            episode = load_episode(source, args.split, args.row or 0)
            return env.reset(options={"episode": episode})
        return env.reset(seed=args.seed or 0)
    finally:
        env.close()


def run(args: argparse.Namespace) -> int:
    """Run ``rsb render``; returns the exit status."""
    check_args(args)
    source = render_source(args.task, args.row, args.seed)
    make_folder(args.output.parent)
    levels = range(5) if args.visual_level == "all" else [int(args.visual_level)]
    rows = []
    for level in levels:
        obs, info = _first_obs(args, source, level)
        rows.append(np.concatenate([obs["images"][c] for c in CAMERAS], 1))
    strip = np.concatenate(rows, 0)
    ok, data = cv2.imencode(args.output.suffix.lower(), cv2.cvtColor(strip, cv2.COLOR_RGB2BGR))
    if not ok:  # pragma: no cover - every suffix in IMAGE_SUFFIXES has an encoder
        raise RsbError(f"{args.output}: OpenCV cannot encode {args.output.suffix!r} images")
    atomic_write_bytes(args.output, data.tobytes())
    print(info["instruction"])
    layout = "head | left | right wrist" + ("; rows V0..V4" if len(rows) > 1 else "")
    print(f"wrote {args.output} ({strip.shape[1]}x{strip.shape[0]}, {layout})")
    return 0
