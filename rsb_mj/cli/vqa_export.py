"""``rsb vqa-export``: image-question-answer samples for VLM cotraining (train split only).

Example::

    rsb vqa-export RSB-General-4 --split train -n 20 -o vqa/

Writes ``vqa/samples.jsonl`` (LLaVA-style conversations) and ``vqa/images/*.png``; see
:mod:`rsb_mj.datasets.vqa` for the schema.
"""

from __future__ import annotations

import argparse

from rsb_mj.cli._flags import add_episodes, add_out


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``vqa-export`` subcommand."""
    p = subparsers.add_parser(
        "vqa-export",
        help="image-question-answer samples from train episodes (LLaVA JSONL + PNG)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("suite", help="suite name, e.g. RSB-General-4")
    p.add_argument("--split", default="train", help="train (eval is refused)")
    add_episodes(p, "samples, one per train episode (default 20)", default=20, dest="n")
    p.add_argument("--start", type=int, default=0, help="first train row (default 0)")
    add_out(p, "output folder", required=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export the samples; 0 on success."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.datasets.vqa import SAMPLES_FILE, export_vqa

    count = export_vqa(args.suite, args.out, split=args.split, n=args.n, start=args.start)
    print(f"{count} samples: {args.out / SAMPLES_FILE}")
    return 0
