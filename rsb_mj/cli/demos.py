"""``rsb demos SUITE --split train -n N -o DIR``: write expert demonstrations (HDF5)."""

from __future__ import annotations

import argparse

from rsb_mj.cli._flags import add_episodes, add_jobs, add_out
from rsb_mj.suites import SUITES


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
            "to retry them)."
        ),
    )
    p.add_argument("suite", help=f"suite name ({', '.join(SUITES)}) or a task file (.bddl)")
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
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress (default: a bar on a terminal, else a line per 5%% or per 10 s)",
    )
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
    from rsb_mj.datasets.demos import write_demos
    from rsb_mj.errors import RsbError
    from rsb_mj.suites import get_suite
    from rsb_mj.tables.episode_source import is_task_file, label, task_path

    if args.n < 1 or args.start < 0 or args.jobs < 1:
        raise RsbError("-n and --jobs must be >= 1 and --start >= 0")
    task_path(args.suite)
    suite = args.suite if is_task_file(args.suite) else get_suite(args.suite).name
    cameras = tuple(c for c in args.cameras.split(",") if c)
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
    )
    for reason in res["damaged"]:
        print(f"  rewritten: {reason}")
    for f in res["failures"]:
        print(f"  episode {f['index']}: expert failed: {f['failure']}")
    for e in res["errors"]:
        print(f"  episode {e['index']}: error (not written): {e['error']}")
    damaged = f"{len(res['damaged'])} damaged rewritten, " if res["damaged"] else ""
    errors = f", {len(res['errors'])} errors: rerun to retry" if res["errors"] else ""
    print(
        f"rsb demos: {label(suite)} {args.split}: {res['total']} episodes in {args.out} "
        f"({res['written']} written, {res['existing']} already there, {damaged}"
        f"{res['failed']} with expert failures{errors}) in {res['seconds']:.0f} s"
    )
    if args.format == "lerobot":
        from rsb_mj.datasets.lerobot import export_lerobot

        out = export_lerobot(
            args.out, args.out / "lerobot", version=args.lerobot_version, cameras=cameras,
            overwrite=True,
        )  # fmt: skip
        print(
            f"rsb demos: LeRobot v{out.version} dataset of {out.episodes} successful episodes "
            f"in {out.out_dir}"
        )
    return 3 if res["errors"] else 1 if res["failed"] else 0
