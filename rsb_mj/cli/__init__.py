"""The ``rsb`` command line.

Each subcommand lives in its own module in this package and exposes
``register(subparsers) -> None``, which adds its parser and sets ``func`` on it via
``parser.set_defaults(func=run)``; ``run(args) -> int`` returns the exit status.
Modules are discovered in name order, so adding a subcommand touches no other file.

Exit status: 0 success, 1 findings or failed checks, 2 usage or internal error (including
an output folder that cannot be written or is in use by another run, and a policy that
fails its start-up check), 3 the run finished but some episodes ended in errors (not
scored; rerunning the same command retries them; ``rsb eval``, ``rsb demos``).

A command with ``--allow-root DIR`` (:func:`rsb_mj.lang.files.add_allow_root`) runs with
those folders allowed for the files task files name.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import platform
import sys

from rsb_mj.errors import RsbError
from rsb_mj.lang.files import allow_roots


def command_modules() -> list[str]:
    """Names of the subcommand modules, in name order (``expert_check`` is ``rsb
    expert-check``)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``rsb`` argument parser with every subcommand registered, or only the one whose
    module is ``only`` (a command then starts without importing the others)."""
    parser = argparse.ArgumentParser(
        prog="rsb",
        description="rsb_mj: RoboSemanticBench in MuJoCo.",
    )
    parser.add_argument(
        "--version", action=_Version, help="print the rsb_mj and mujoco versions and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [only] if only is not None else command_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(sub)
    return parser


class _Version(argparse.Action):
    """``rsb --version``: ``rsb_mj X (mujoco Y, Python Z)``; mujoco is imported only here."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        # deferred: importlib.metadata and MuJoCo, for --version only
        from rsb_mj.version import mujoco_version, rsb_mj_version

        python = platform.python_version()
        print(f"rsb_mj {rsb_mj_version()} (mujoco {mujoco_version()}, Python {python})")
        parser.exit()


def _innermost(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` were parsed for (``rsb episodes build``'s)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return _innermost(action.choices[chosen], args)
    return parser


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command parser below ``parser`` by its full name (``eval``, ``episodes
    build``), ``parser`` itself as ``""``."""
    out = {"": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for inner, p in subcommand_parsers(sub).items():
                    out[f"{name} {inner}".strip()] = p
    return out


def _command_module(argv: list[str]) -> str | None:
    """The module of the subcommand ``argv`` names, or None (no command, ``--help``, or an
    unknown name: the full parser then answers, listing the valid choices)."""
    if not argv or argv[0].startswith("-"):
        return None
    name = argv[0].replace("-", "_")
    return name if name in command_modules() else None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rsb`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command_module(argv))
    args, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's usage, not ``rsb [-h] COMMAND``'s
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        with allow_roots(getattr(args, "allow_root", None) or ()):
            return int(args.func(args))
    except RsbError as exc:
        print(f"rsb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rsb {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
