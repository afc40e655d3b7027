"""``rsb expert-check SUITE... -n 200``: measure the built-in expert's success.

The evaluation runner with ``--policy expert`` (see :mod:`rsb_mj.evaluation.expert_check`):
one line per suite, every failure with its reason.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rsb_mj.atomic import atomic_write_text
from rsb_mj.cli._flags import add_episodes, add_jobs, add_no_progress, add_out
from rsb_mj.errors import RsbError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.lock import make_folder
from rsb_mj.suites import SUITES, expand_suites, get_suite
from rsb_mj.tables.episode_source import check_rows, is_task_file, task_path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``expert-check`` subcommand."""
    p = subparsers.add_parser(
        "expert-check",
        help="run the built-in expert on N rows per suite and report TSR/GSR",
        description=(
            "Run the scripted expert on rows START..START+N-1 of each suite (no seed skipped) "
            "exactly as `rsb eval --policy expert` does (same episodes, seeds, rollout and "
            "scoring), print TSR, GSR and each failure with its reason. "
            "Exit status 1 when a suite misses TSR >= 99%% or GSR = 100%%."
        ),
    )
    p.add_argument(
        "suites",
        nargs="*",
        default=list(SUITES),
        help="suites, 'a2a' (the Act2Answer suites) or task files (.bddl); default: all six",
    )
    p.add_argument("--split", default="eval", choices=("train", "eval"))
    add_episodes(p, "rows per suite (default 200)", default=200, dest="n")
    p.add_argument("--start", type=int, default=0)
    add_jobs(p, "worker processes (default 1)")
    p.add_argument(
        "--log",
        type=Path,
        help="write every episode's record (rsb eval's, with failure_reason) here, one JSON "
        "line each (at the end, atomically)",
    )
    add_out(
        p,
        "keep the run directory here (resumable; `rsb report` reads it); default: a temporary one",
    )
    add_no_progress(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print every failure and one line per suite; 0 when all suites pass."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.evaluation.expert_check import check_suites

    if args.n < 1 or args.start < 0 or args.jobs < 1:
        raise RsbError("-n and --jobs must be >= 1 and --start >= 0")
    suites = expand_suites(list(args.suites)) or list(SUITES)
    for suite in suites:
        task_path(suite)
        name = suite if is_task_file(suite) else get_suite(suite).name
        check_rows(name, args.split, args.n, args.start)
    if args.log is not None:
        if args.log.is_dir():
            raise RsbError(f"{args.log}: is a folder; --log names a file")
        make_folder(args.log.parent)

    def log(records: list[EpisodeRecord]) -> None:
        if args.log is not None and records:
            atomic_write_text(args.log, "".join(r.to_json() + "\n" for r in records))

    results = check_suites(
        suites,
        split=args.split,
        n=args.n,
        start=args.start,
        jobs=args.jobs,
        progress=not args.no_progress,
        out=args.out,
        on_records=log,
    )
    for c in results:
        for line in c.failure_lines():
            print(line)
        print(c.line())
    return 0 if all(c.passed for c in results) else 1
