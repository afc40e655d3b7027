"""``rsb legibility [SOURCE...] -n 200``: can the candidates be read in the head camera?

For rows 0..N-1 of each source (a suite's frozen eval table, or a task file's seeded rows as
``rsb expert-check`` draws them), renders only the head camera at reset and

* reads every candidate by its display kind from the image with
  :func:`rsb_mj.scene.reading.read_displays`, knowing only where the candidates stand: its
  letter, its color (objects without letters), or the answer it shows (Act2Answer plates,
  read at the 224 x 224 policy input unless told otherwise);
* measures every letter's projected height [px] (:func:`rsb_mj.scene.legibility.letter_heights`)
  at the rendered size and at the policy input (``resize_with_pad`` to 224 x 224).

With ``--policy-input`` the reads are made on the 224 x 224 policy image instead of the
rendered one (``--rendered-input``: the rendered one). Exit status 1 when a source reads
below ``--min-accuracy`` (99%) or a letter is smaller than 12 px at 320 x 240 / 8 px at
224 x 224; 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rsb_mj.atomic import atomic_write_text
from rsb_mj.cli._flags import add_episodes
from rsb_mj.errors import RsbError
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import A2A_SUITES, SUITES, get_suite

#: Beyond Blocks task files (``all`` in SOURCE adds none of them; name them or use ``objects``).
OBJECT_TASKS = (
    "rsb_math_4_objects.bddl",
    "rsb_general_4_objects.bddl",
    "rsb_hardmath_4_objects.bddl",
    "rsb_math_10_objects.bddl",
    "rsb_general_4_kitchen.bddl",
    "rsb_math_4_toolbox.bddl",
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``legibility`` subcommand."""
    p = subparsers.add_parser(
        "legibility",
        help="read every candidate's letter from the head camera; letter heights in pixels",
        description=(
            "Render the head camera at reset for rows START..START+N-1 of each source, read "
            "each candidate's letter (or an object's color) from the image knowing where the "
            "candidates stand, and measure the letters' projected heights. Exit 1 when a "
            "source reads below --min-accuracy or a letter is below 12 px at 320x240 or "
            "8 px at the 224x224 policy input; 2 on a usage error."
        ),
    )
    p.add_argument(
        "sources",
        nargs="*",
        default=["all"],
        metavar="SOURCE",
        help="suite names, task files (.bddl), 'all' (the six suites), 'a2a' (the Act2Answer "
        "plates, read at 224x224) or 'objects' (the Beyond Blocks task files); default: all",
    )
    p.add_argument("--split", default="eval", choices=("train", "eval"))
    add_episodes(p, "rows per source (200)", default=200, dest="n")
    p.add_argument("--start", type=int, default=0, help="first row (0)")
    p.add_argument("--width", type=int, default=320, help="head image width [px] (320)")
    p.add_argument("--height", type=int, default=240, help="head image height [px] (240)")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--policy-input",
        action="store_const",
        const=True,
        default=None,
        dest="policy_input",
        help="read from the 224x224 resize_with_pad image a pi0 policy gets (default for "
        "candidates that show their answers)",
    )
    which.add_argument(
        "--rendered-input",
        action="store_const",
        const=False,
        dest="policy_input",
        help="read from the rendered image (default for letters and colors)",
    )
    p.add_argument("--min-accuracy", type=float, default=0.99, help="pass mark per source (0.99)")
    p.add_argument("--json", type=Path, help="write the per-source figures here")
    p.set_defaults(func=run)


def expand_sources(sources: list[str]) -> list[str]:
    """Suite names and task file paths for SOURCE arguments (``all``, ``objects`` expanded).

    Raises:
        RsbError: for a name that is neither a suite nor an existing task file.
    """

    out: list[str] = []
    for source in sources:
        if source == "all":
            out.extend(SUITES)
        elif source.lower() == "a2a":
            out.extend(A2A_SUITES)
        elif source == "objects":
            out.extend(str(tasks_dir() / name) for name in OBJECT_TASKS)
        elif source.endswith(".bddl"):
            if not Path(source).is_file():
                raise RsbError(f"task file {source!r} not found")
            out.append(source)
        else:
            try:
                out.append(get_suite(source).name)
            except RsbError as exc:
                raise RsbError(f"{exc}, all, objects, or a task file (.bddl)") from None
    return list(dict.fromkeys(out))


def run(args: argparse.Namespace) -> int:
    """Print one line per source; 0 when every source passes."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.evaluation.legibility import check_source

    if args.n < 1 or args.start < 0:
        raise RsbError(f"-n must be >= 1 and --start >= 0, got -n {args.n} --start {args.start}")
    results = []
    for source in expand_sources(args.sources):
        result = check_source(
            source,
            split=args.split,
            n=args.n,
            start=args.start,
            width=args.width,
            height=args.height,
            policy_input=args.policy_input,
        )
        result.min_accuracy = args.min_accuracy
        for miss in result.misses[:10]:
            print(
                f"  {result.label} row {miss['row']}: {miss['candidate']} shows "
                f"{miss['truth']!r}, read {miss['read']!r}"
            )
        print(result.line(), flush=True)
        results.append(result)
    if args.json:
        atomic_write_text(args.json, json.dumps([r.to_dict() for r in results], indent=1) + "\n")
    return 0 if all(r.passed for r in results) else 1
