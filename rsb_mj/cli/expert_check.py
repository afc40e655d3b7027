"""``rsb expert-check SUITE... -n 200``: measure the built-in expert's success."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rsb_mj.suites import SUITES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``expert-check`` subcommand."""
    p = subparsers.add_parser(
        "expert-check",
        help="run the built-in expert on N rows per suite and report TSR/GSR",
        description=(
            "Run the scripted expert on rows START..START+N-1 of each suite (no seed skipped), "
            "score them like the benchmark, print TSR, GSR and each failure with its reason. "
            "Exit status 1 when a suite misses TSR >= 99%% or GSR = 100%%."
        ),
    )
    p.add_argument(
        "suites",
        nargs="*",
        default=list(SUITES),
        help="suites or task files (.bddl); default: all six suites",
    )
    p.add_argument("--split", default="eval", choices=("train", "eval"))
    p.add_argument("-n", type=int, default=200, help="rows per suite (default 200)")
    p.add_argument("--start", type=int, default=0)
    p.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    p.add_argument(
        "--log", type=Path, help="write one JSON line per episode here (at the end, atomically)"
    )
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per suite and every failure; 0 when all suites pass."""
    from rsb_mj.atomic import atomic_write_text
    from rsb_mj.errors import RsbError
    from rsb_mj.expert.check import check_suites
    from rsb_mj.expert.demos import check_rows
    from rsb_mj.expert.episodes import source_name
    from rsb_mj.lock import make_folder

    if args.n < 1 or args.start < 0 or args.jobs < 1:
        raise RsbError("-n and --jobs must be >= 1 and --start >= 0")
    suites = args.suites or list(SUITES)
    for suite in suites:
        check_rows(source_name(suite), args.split, args.n, args.start)
    if args.log is not None:
        if args.log.is_dir():
            raise RsbError(f"{args.log}: is a folder; --log names a file")
        make_folder(args.log.parent)
    lines: list[str] = []
    try:
        results = check_suites(
            suites,
            split=args.split,
            n=args.n,
            start=args.start,
            jobs=args.jobs,
            progress=not args.no_progress,
            on_result=(lambda r: lines.append(json.dumps(r))) if args.log else None,
        )
    finally:
        if args.log is not None and lines:
            atomic_write_text(args.log, "\n".join(lines) + "\n")
    for c in results:
        for f in sorted(c.failures, key=lambda r: r["index"]):
            print(f"  {c.suite} row {f['index']} (seed {f['seed']}): {f['failure']}")
        print(c.line())
    return 0 if all(c.passed for c in results) else 1
