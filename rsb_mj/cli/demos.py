"""``rsb demos SUITE --split train -n N -o DIR``: write expert demonstrations (HDF5).

Goal tasks (LIBERO / VLA-Arena files; the one writer, :mod:`rsb_mj.datasets.demos`): ``rsb demos
FILE.bddl [FILE.bddl ...] -n N -o DIR`` records seeds ``--start .. --start + N - 1`` of every
file; ``rsb demos --suite vla-arena -n N -o DIR`` rows ``--start .. --start + N - 1`` of every
file's frozen train table (:mod:`rsb_mj.tables.layouts`: 20 per file).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rsb_mj.cli._flags import add_episodes, add_jobs, add_level, add_no_progress, add_out
from rsb_mj.suites import GOAL_SUITES, SUITES

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.datasets.demo_sources import GoalDemos


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demos`` subcommand."""
    p = subparsers.add_parser(
        "demos",
        help="write expert demonstrations, one HDF5 file per episode (resumable)",
        description=(
            "Run the built-in expert on rows START..START+N-1 of a suite's split and write one "
            "HDF5 file per episode (JPEG camera frames, 14-D states and actions, instruction, "
            "episode metadata). Rerunning re-verifies and skips finished files (damaged ones are "
            "rewritten), so a killed run resumes. One run per folder at a time. Episodes run "
            "as rsb eval --policy expert runs them (same rows, seeds, rollout, workers). Exit "
            "0 done, 1 some expert failures, 2 usage error, rows outside the suite's table, an "
            "unwritable or busy folder, 3 some episodes ended in errors (not written; rerun "
            "to retry them). Goal tasks (task files without (:question ...), goal suites "
            f"{', '.join(GOAL_SUITES)}): seeds --start..--start+N-1 of every file (of a goal "
            "suite: rows of its frozen train table, 20 per file), the instruction being the "
            "file's :language; --split does not apply."
        ),
    )
    p.add_argument(
        "suite",
        nargs="*",
        help=f"suite name ({', '.join(SUITES)}), a task file (.bddl), or goal task files",
    )
    p.add_argument(
        "--suite",
        dest="suites",
        action="append",
        default=[],
        metavar="NAME",
        help=f"a suite by name (repeatable for goal suites: {', '.join(GOAL_SUITES)})",
    )
    add_level(p, "visual", "VLA-Arena visual perturbation V0-V4 of the recorded frames (default 0)")
    add_level(
        p,
        "language",
        "K WordNet substitutes in the recorded instruction (goal tasks: in :language; default 0)",
    )
    p.add_argument(
        "--assets",
        default=None,
        metavar="DIR",
        help="goal tasks: objects from your LIBERO or VLA-Arena asset folder (as rsb eval)",
    )
    p.add_argument(
        "--max-steps", type=int, default=None, help="goal tasks: override the step limit"
    )
    p.add_argument("--split", default="train", choices=("train", "eval"))
    add_episodes(p, "number of episodes (default 20)", default=20, dest="n")
    add_out(p, "output folder", required=True)
    p.add_argument("--start", type=int, default=0, help="first row index (default 0)")
    add_jobs(p, "worker processes (default 1)")
    p.add_argument(
        "--cameras",
        default="head,left_wrist,right_wrist",
        help="comma-separated cameras to record ('' for none)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run episodes as Ray tasks on the cluster at ADDRESS (the output folder must be "
        "shared by every node), or without ADDRESS on a local cluster of --jobs CPUs "
        '(127.0.0.1 only); needs pip install "rsb_mj[ray]"',
    )
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    add_no_progress(p)
    p.add_argument(
        "--cot",
        action="store_true",
        help="training prompt = instruction + <think>rationale</think> (train split only; the "
        "rationale is stored in every train demo either way)",
    )
    p.add_argument(
        "--format",
        default="hdf5",
        choices=("hdf5", "lerobot"),
        help="lerobot: also convert the folder into a LeRobot dataset in OUT/lerobot "
        "(rebuilt on each run; see rsb export-lerobot)",
    )
    p.add_argument("--lerobot-version", default="3.0", choices=("3.0", "2.1"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the missing episodes and print one summary line."""
    from rsb_mj.datasets.demo_sources import goal_demos
    from rsb_mj.datasets.demos import write_demos
    from rsb_mj.errors import RsbError
    from rsb_mj.suites import get_suite
    from rsb_mj.tables.episode_source import is_task_file, label, load_problem

    if args.n < 1 or args.start < 0 or args.jobs < 1:
        raise RsbError("-n and --jobs must be >= 1 and --start >= 0")
    if args.max_steps is not None and args.max_steps < 1:
        raise RsbError("--max-steps must be at least 1")
    names = [*args.suite, *args.suites]
    goal = goal_demos(names, split=args.split, cot=args.cot, n=args.n, start=args.start)
    if goal is not None:
        return _run_goal(args, goal)
    if len(names) != 1:
        raise RsbError(
            f"give one suite or task file (got {len(names)}: {' '.join(names) or 'none'}); "
            "several only for goal task files and goal suites"
        )
    (args.suite,) = names
    suite = args.suite if is_task_file(args.suite) else get_suite(args.suite).name
    load_problem(suite)  # a missing file, a syntax error or an unknown suite first
    if args.assets is not None or args.max_steps is not None:
        raise RsbError(
            "--assets and --max-steps apply to goal tasks; question demonstrations run on "
            "rsb_mj's objects with the suite's step limit"
        )
    cameras = _cameras(args)
    res = write_demos(
        suite,
        args.split,
        args.n,
        args.out,
        start=args.start,
        jobs=args.jobs,
        cameras=cameras,
        width=args.width,
        height=args.height,
        progress=not args.no_progress,
        cot=args.cot,
        ray=args.ray,
        visual_level=args.visual_level,
        language_level=args.language_level,
    )
    _print_result(
        res,
        lambda item: f"episode {item['index']}",
        f"{label(suite)} {args.split}: {res['total']} episodes in {args.out}",
    )
    if args.format == "lerobot":
        _export(args, cameras)
    return 3 if res["errors"] else 1 if res["failed"] else 0


def _cameras(args: argparse.Namespace) -> tuple[str, ...]:
    """The cameras ``--cameras`` names (none for ``''``)."""
    return tuple(c for c in args.cameras.split(",") if c)


def _run_goal(args: argparse.Namespace, demos: GoalDemos) -> int:
    """``rsb demos`` on goal task files and goal suites: write the demonstrations of the
    sources :func:`rsb_mj.datasets.demo_sources.goal_demos` found, then name the skipped
    files."""
    from rsb_mj.datasets.demos import write_demos

    cameras = _cameras(args)
    res = write_demos(
        demos.sources,  # write_demos checks the --assets folder
        "train",
        args.n,
        args.out,
        start=args.start,
        goal_suite=demos.goal_suite,
        jobs=args.jobs,
        cameras=cameras,
        width=args.width,
        height=args.height,
        visual_level=args.visual_level,
        language_level=args.language_level,
        assets=args.assets,
        max_steps=args.max_steps,
        progress=not args.no_progress,
        ray=args.ray,
    )
    _print_result(
        res,
        lambda item: item["name"],
        f"{demos.tasks} goal task files x {args.n} seeds from {args.start}: "
        f"{res['total']} episodes in {args.out}",
    )
    if demos.skipped:
        print(
            f"rsb demos: {len(demos.skipped)} suite files were not recorded (rsb_mj cannot "
            "build them, or their frozen train table is short):\n" + "\n".join(demos.skipped),
            file=sys.stderr,
        )
    if args.format == "lerobot":
        _export(args, cameras)
    return 3 if res["errors"] or demos.skipped else 1 if res["failed"] else 0


def _print_result(res: dict[str, Any], name: Callable[[dict[str, Any]], str], head: str) -> None:
    """Print what a demos run did: each rewritten, failed and errored episode (``name`` of
    its entry), then one summary line starting ``rsb demos: {head}``."""
    for reason in res["damaged"]:
        print(f"  rewritten: {reason}")
    for f in res["failures"]:
        print(f"  {name(f)}: expert failed: {f['failure']}")
    for e in res["errors"]:
        print(f"  {name(e)}: error (not written): {e['error']}")
    damaged = f"{len(res['damaged'])} damaged rewritten, " if res["damaged"] else ""
    errors = f", {len(res['errors'])} errors: rerun to retry" if res["errors"] else ""
    print(
        f"rsb demos: {head} ({res['written']} written, {res['existing']} already there, "
        f"{damaged}{res['failed']} with expert failures{errors}) in {res['seconds']:.0f} s"
    )


def _export(args: argparse.Namespace, cameras: tuple[str, ...]) -> None:
    """``--format lerobot``: export the demos of ``args.out`` to ``args.out/lerobot``."""
    from rsb_mj.datasets.lerobot import export_lerobot  # the lerobot-export extra

    out = export_lerobot(
        args.out, args.out / "lerobot", version=args.lerobot_version, cameras=cameras,
        overwrite=True,
    )  # fmt: skip
    print(
        f"rsb demos: LeRobot v{out.version} dataset of {out.episodes} successful episodes "
        f"in {out.out_dir}"
    )
