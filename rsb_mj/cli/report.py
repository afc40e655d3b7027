"""``rsb report``: Markdown, CSV and PNG tables of run directories (RSB Tables 1, 2, 6).

Example::

    rsb report runs/quick runs/mypolicy --out runs/report
    rsb report runs/quick --html          # also runs/quick/report/report.html
    rsb report /archive/run --stdout      # a read-only run folder: print, write nothing

``--html`` adds ``report.html``: one self-contained page (no network) with the same tables,
the plots and an episode browser (filters, sorting, each episode's instruction, choice,
signals and recorded head-camera frames); see docs/html_report.md.

The run directories are only read. Their records are checked first (each consistent in
itself and with its suite, one scored record per episode, one task per row); any that are
not are listed as ``path:line: problem`` and nothing is reported (exit 2). A report folder
that cannot be written is an error naming it (exit 2), before anything is written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rsb_mj.cli._flags import add_out


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand."""
    p = subparsers.add_parser(
        "report",
        help="tables (Markdown, CSV) and plots (PNG) of evaluation runs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="run directories")
    add_out(p, "report folder (default: DIR/report for one DIR)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument(
        "--html",
        action="store_true",
        help="also write report.html: one self-contained page of the tables, plots and an "
        "episode browser (opens offline in any browser)",
    )
    p.add_argument(
        "--stdout",
        action="store_true",
        help="print the Markdown report only; write no file (e.g. for a read-only run folder)",
    )
    p.add_argument(
        "--max-error-rate",
        type=float,
        default=0.05,
        metavar="F",
        help="withhold rows whose share of error episodes exceeds F (default 0.05; 0 for a "
        "sealed run: it is complete only without errors)",
    )
    p.add_argument(
        "--allow-errors",
        action="store_true",
        help="print every row whatever its error episodes (they stay excluded from rates)",
    )
    p.add_argument(
        "--allow-mixed-renderers",
        action="store_true",
        help="pool records drawn by different renderers (GL backend, driver or reference "
        "render differ; refused by default, the header says so)",
    )
    p.add_argument(
        "--secret-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="verify the signed records of sealed runs with their secret (every DIR must then "
        "be a sealed run of it; an edited or foreign record is refused with its file:line)",
    )
    p.set_defaults(func=run)


def check_seals(dirs: list[Path], secret_file: Path | None) -> bool:
    """Verify the records of every sealed run among ``dirs``; with ``secret_file`` every
    one must be sealed with it. True when some run is sealed.

    Raises:
        EvalError: see :meth:`rsb_mj.evaluation.run_folder.RunFolder.check_seal`, or for a run that
            is not sealed when ``secret_file`` is given.
    """
    from rsb_mj.errors import EvalError
    from rsb_mj.evaluation.run_folder import RunFolder
    from rsb_mj.evaluation.sealed import Seal

    seal = Seal.read(secret_file) if secret_file is not None else None
    sealed = False
    for d in dirs:
        folder = RunFolder(d)
        if seal is not None and not folder.is_sealed():
            raise EvalError(
                f"{d}: not a sealed run (its run.json names no seal, its records carry no "
                "signature); --secret-file verifies sealed runs only"
            )
        folder.check_seal(seal)
        sealed = sealed or folder.is_sealed()
    return sealed


def run(args: argparse.Namespace) -> int:
    """Write the report and print its Markdown; 0 on success."""
    from rsb_mj.errors import EvalError
    from rsb_mj.reporting.report import printable, write_report

    out = args.out
    if args.stdout and out is not None:
        raise EvalError("--stdout writes no file: give --out or --stdout, not both")
    if args.stdout and args.html:
        raise EvalError("--stdout writes no file: --html needs a report folder (--out DIR)")
    if out is None and not args.stdout:
        if len(args.dirs) > 1:
            raise EvalError(
                "several run directories: name the report folder with --out (or use --stdout)"
            )
        out = args.dirs[0] / "report"
    if not 0.0 <= args.max_error_rate <= 1.0:
        raise EvalError(f"--max-error-rate {args.max_error_rate}: must be within 0..1")
    limit = None if args.allow_errors else args.max_error_rate
    if check_seals(args.dirs, args.secret_file) and limit is not None:
        limit = 0.0  # a sealed run is complete only without errors: rows with one are withheld
    text = write_report(
        args.dirs,
        out,
        plots=not args.no_plots,
        max_error_rate=limit,
        allow_mixed_renderers=args.allow_mixed_renderers,
        html=args.html,
    )
    print(text, end="")
    if out is not None:
        page = f" (page: {out / 'report.html'})" if args.html else ""
        print(printable(f"written to {out}/{page}"))  # a folder name that is not UTF-8: escaped
    return 0
