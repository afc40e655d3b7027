"""``rsb visibility SOURCE... [-n N] [--format json]``: can a goal task's named objects be seen?

What ``rsb legibility`` is for letters, this is for goal tasks (LIBERO / VLA-Arena style files):
for rows START..START+N-1 of each source, the layout is placed and settled as ``rsb eval``
resets it, and each object's and fixture's visible pixels in each camera are counted on a
224 x 224 segmentation render (:mod:`rsb_mj.env.visibility`). A row passes rule 1 when
every object the ``:goal`` or ``:language`` names is wholly inside the head image with at
least 150 visible pixels (or, under a tight head camera that cannot show it at 150 px, 80% of
the pixels it shows it unoccluded and at least 50: the module's tight camera's floor).

SOURCE is a goal task file (its rows are bare seeds), a shipped goal suite's file as
``SUITE::FILE`` (its frozen rows), or a goal suite name (``libero-layouts``, ``vla-arena``,
``vla-arena-l0`` ...: every file's frozen rows). Exit status 1 when a row fails rule 1, 0
when every row passes, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rsb_mj.cli._flags import add_episodes
from rsb_mj.errors import RsbError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``visibility`` subcommand."""
    p = subparsers.add_parser(
        "visibility",
        help="visible pixels of a goal task's named objects in each camera at reset",
        description=(
            "Place and settle rows START..START+N-1 of each goal source, render every camera "
            "at 224x224 with segmentation and count each object's visible pixels. Exit 1 when "
            "a row's named objects (those :goal or :language names) are not wholly inside the "
            "head image with >= 150 px each (under a tight head camera that cannot show one "
            "at 150 px: 80% of its unoccluded pixels, at least 50); 2 on a usage error."
        ),
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="goal task files (.bddl), a goal suite's file as SUITE::FILE, or goal suite names",
    )
    p.add_argument("--split", default="eval", choices=("train", "eval"))
    add_episodes(p, "rows per file (5)", default=5, dest="n")
    p.add_argument("--start", type=int, default=0, help="first row (0)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="(text)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per row (or the JSON list); 0 when every row passes rule 1."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.env.visibility import MIN_PIXELS, source_rows, visibility_sources
    from rsb_mj.tables.episode_source import goal_rows

    if args.n < 1 or args.start < 0:
        raise RsbError(f"-n must be >= 1 and --start >= 0, got -n {args.n} --start {args.start}")
    rows = []
    for source in visibility_sources(args.sources):
        table = goal_rows(source, args.split)
        stop = args.start + args.n if table is None else min(args.start + args.n, len(table))
        for row in source_rows(source, args.split, range(args.start, stop)):
            rows.append(row)
            if args.format == "text":
                _print(row)
    passed = sum(not r.fails for r in rows)
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in rows], indent=1))
    else:
        named = sum(len(r.named) for r in rows)
        bad = sum(len({f.split(":")[0] for f in r.fails}) for r in rows)
        print(
            f"rule 1 (named objects wholly inside the 224x224 head image, >= {MIN_PIXELS} px "
            "or the tight camera's floor): "
            f"{passed} of {len(rows)} rows pass; {named - bad} of {named} named objects"
        )
    return 0 if passed == len(rows) else 1


def _print(row: object) -> None:
    """``FILE row K (seed S): PASS|FAIL`` and a line per object: px per camera, named first."""
    from rsb_mj.env.visibility import RowVisibility

    assert isinstance(row, RowVisibility)
    name = Path(row.task.rpartition("::")[2]).name
    print(f"{name} row {row.index} (seed {row.seed}): {'FAIL' if row.fails else 'PASS'}")
    objects = [*row.named, *(o for o in row.views.get("head", {}) if o not in row.named)]
    for obj in objects:
        cells = []
        for cam, views in row.views.items():
            view = views[obj]
            cells.append(f"{cam} {view.pixels}{'' if view.inside else ' (cut)'}")
        mark = "*" if obj in row.named else " "
        print(f"  {mark} {obj}: {', '.join(cells)}")
    for why in row.fails:
        print(f"  fails: {why}")
