"""The ``rsb`` command line.

Each subcommand lives in its own module in this package and exposes
``register(subparsers) -> None``, which adds its parser and sets ``func`` on it via
``parser.set_defaults(func=run)``; ``run(args) -> int`` returns the exit status.
Modules are discovered in name order, so adding a subcommand touches no other file.

Exit status: 0 success, 1 findings or failed checks, 2 usage or internal error (including
an output folder that cannot be written or is in use by another run, and a policy that
fails its start-up check), 3 the run finished but some episodes ended in errors (not
scored; rerunning the same command retries them; ``rsb eval``).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from rsb_mj.errors import RsbError


def build_parser() -> argparse.ArgumentParser:
    """The ``rsb`` argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="rsb",
        description="rsb_mj: RoboSemanticBench in MuJoCo.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rsb`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except RsbError as exc:
        print(f"rsb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rsb {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
