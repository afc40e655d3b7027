"""``rsb probe``: layerwise linear probes of the policy features a run stored.

Example::

    rsb eval --suite A2A-Color --policy my_pkg.net:make --features first --episodes 40 \\
        --out runs/net
    rsb probe runs/net                      # target answer: runs/net/probe/probe_answer.*
    rsb probe runs/net --target side

Per layer, an L2 logistic regression on the layer's standardized features predicts the
target out of fold (folds grouped by question, Act2Answer item and row), against chance
with a label-permutation control; the knows-but-does-not-act rate says how often the layer
was right while the policy's choice was wrong. Writes probe_<target>.md, .csv, .json and
.png (accuracy by depth with the chance band) to RUN/probe/ for one run folder, else --out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rsb_mj.cli._flags import add_out
from rsb_mj.errors import EvalError
from rsb_mj.probing.dataset import QUERIES, TARGETS
from rsb_mj.probing.probe import FOLDS, PERMUTATIONS, SEED, C, ProbeSettings
from rsb_mj.probing.run import PROBE_DIR, probe_runs


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``probe`` subcommand."""

    p = subparsers.add_parser(
        "probe",
        help="layerwise linear probes of stored policy features (rsb eval --features)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dirs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories")
    p.add_argument(
        "--target",
        default="answer",
        choices=TARGETS,
        help="what the probes predict: answer (the correct option), choice (the option the "
        "policy chose; episodes without one are left out), side (where the correct "
        "candidate stood, from the robot's left) (default answer)",
    )
    p.add_argument(
        "--variant",
        default="original",
        metavar="NAME",
        help="the records' instruction variant probed (original, an --instruction mode, "
        "counterfactual, or all) (default original)",
    )
    p.add_argument(
        "--query",
        default="first",
        choices=QUERIES,
        help="with several stored queries per episode (--features every:K): the first, the "
        "last or their mean (default first)",
    )
    p.add_argument("--folds", type=int, default=FOLDS, help=f"folds (default {FOLDS})")
    p.add_argument(
        "--C", dest="c", type=float, default=C, help=f"inverse L2 strength (default {C:g})"
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=PERMUTATIONS,
        help=f"label permutations of the control (default {PERMUTATIONS}; 0: none)",
    )
    p.add_argument("--seed", type=int, default=SEED, help=f"folds' seed (default {SEED})")
    add_out(p, "output folder (default RUN_DIR/probe for one)")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    p.add_argument("--stdout", action="store_true", help="print the table only; write no file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Probe, print the Markdown table, write the files; 0 on success."""

    out = args.out
    if args.stdout and out is not None:
        raise EvalError("--stdout writes no file: give --out or --stdout, not both")
    if out is None and not args.stdout:
        if len(args.dirs) > 1:
            raise EvalError(
                "several run directories: name the output folder with --out (or use --stdout)"
            )
        out = args.dirs[0] / PROBE_DIR
    settings = ProbeSettings(
        folds=args.folds, c=args.c, permutations=args.permutations, seed=args.seed
    )
    done = probe_runs(
        args.dirs,
        out,
        target=args.target,
        variant=args.variant,
        query=args.query,
        settings=settings,
        plot=not args.no_plot,
    )
    print(done.markdown, end="")
    if done.files:
        print("written: " + ", ".join(str(f) for f in done.files))
    return 0
