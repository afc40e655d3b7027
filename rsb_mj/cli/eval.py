"""``rsb eval``: evaluate policies on suites; resumable; prints the GSR/TSR/nSG table.

Example (the README main job)::

    rsb eval --suite all --policy expert --policy random-grasp --episodes 5 --out runs/quick

Rerunning the same command resumes: finished episodes are kept, the rest run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rsb_mj.suites import SUITES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate policies on suites (GSR, TSR, nSG); resumable",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--suite",
        action="append",
        required=True,
        metavar="NAME",
        help=f"suite name or 'all' (repeatable): {', '.join(SUITES)}",
    )
    p.add_argument(
        "--policy",
        action="append",
        required=True,
        metavar="SPEC",
        help="noop | expert | random-grasp | nearest | openpi:HOST:PORT[:HORIZON] | "
        "module:factory (repeatable)",
    )
    p.add_argument("--episodes", type=int, default=10, help="episodes per suite (default 10)")
    p.add_argument("--out", type=Path, required=True, help="run directory (resumed if present)")
    p.add_argument("--split", default="eval", choices=("eval", "train"))
    p.add_argument("--start", type=int, default=0, help="first episode index (default 0)")
    p.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="worker processes (default: min(2, CPUs))",
    )
    p.add_argument("--max-steps", type=int, default=None, help="override the suite step limit")
    p.add_argument(
        "--video",
        type=int,
        action="append",
        default=[],
        metavar="INDEX",
        help="write the head camera of episode INDEX to OUT/videos/ (repeatable)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print the summary table; 0 on completion."""
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.evaluation.runner import EvalConfig, run_eval
    from rsb_mj.evaluation.tables import markdown, summary_table

    suites: list[str] = []
    for name in args.suite:
        suites += list(SUITES) if name.lower() == "all" else [name]
    config = EvalConfig(
        suites=tuple(dict.fromkeys(suites)),
        policies=tuple(dict.fromkeys(args.policy)),
        episodes=args.episodes,
        out=args.out,
        split=args.split,
        start=args.start,
        workers=args.workers,
        max_steps=args.max_steps,
        videos=tuple(args.video),
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    records = run_eval(config)
    print(markdown(summary_table(summarize(records))))
    print(
        "rates in %, Wilson 95% intervals; nSG only where GSR > 0; correct grasp: first grasp "
        "on the answer among grasping episodes; vs chance: that selection rate against 1/N "
        "+- Act2Answer's margin"
    )
    errors = [r for r in records if r.termination == "error"]
    if errors:
        print(
            f"{len(errors)} episode(s) ended in an error, e.g. {errors[0].error}", file=sys.stderr
        )
    print(f"records: {args.out / 'episodes.jsonl'}; report: rsb report {args.out}")
    return 0
