"""One vocabulary of flags for every ``rsb`` subcommand.

``-o/--out``, ``-j/--jobs`` and ``-n/--episodes`` mean the same wherever they appear
(:data:`VOCABULARY`; docs/cli.md holds the same table, and a test checks every subcommand's
parser against it). Spellings a subcommand had before (``--workers``, ``--output``) stay as
hidden aliases: they parse, but ``--help`` shows only the shared spelling.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

#: Flag -> (its short form, what it means in every subcommand that has it).
VOCABULARY: dict[str, tuple[str, str]] = {
    "--out": ("-o", "where the command writes: a folder, or the one file it makes"),
    "--jobs": ("-j", "worker processes (at least 1)"),
    "--episodes": ("-n", "episodes (table rows) per suite or source (at least 1)"),
}


def at_least_one(text: str) -> int:
    """An integer of at least 1 (argparse ``type``: the error names the flag)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be at least 1")
    return value


def _aliases(p: Any, old: tuple[str, ...], dest: str, **kw: Any) -> None:
    for flag in old:
        p.add_argument(flag, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kw)


def add_out(
    p: argparse.ArgumentParser,
    help: str,
    *,
    required: bool = False,
    default: Path | None = None,
    dest: str = "out",
    metavar: str | None = None,
    old: tuple[str, ...] = (),
) -> None:
    """``-o/--out PATH`` (and hidden ``old`` spellings; a required one may be given as
    either)."""
    group: Any = p.add_mutually_exclusive_group(required=True) if required and old else p
    group.add_argument(
        "-o", "--out", type=Path, required=required and not old, default=default, dest=dest,
        metavar=metavar, help=help,
    )  # fmt: skip
    _aliases(group, old, dest, type=Path)


def add_jobs(
    p: argparse.ArgumentParser, help: str, *, default: int = 1, old: tuple[str, ...] = ()
) -> None:
    """``-j/--jobs N`` (at least 1; hidden ``old`` spellings)."""
    p.add_argument(
        "-j", "--jobs", type=at_least_one, default=default, metavar="N", dest="jobs", help=help
    )
    _aliases(p, old, "jobs", type=at_least_one)


def add_episodes(
    p: argparse.ArgumentParser, help: str, *, default: int | None, dest: str = "episodes"
) -> None:
    """``-n/--episodes N`` (at least 1)."""
    p.add_argument(
        "-n", "--episodes", type=at_least_one, default=default, metavar="N", dest=dest, help=help
    )


#: The VLA-Arena perturbation levels: 0 (none) to 4.
LEVELS = range(5)


def add_level(p: argparse.ArgumentParser, kind: str, help: str) -> None:
    """``--visual-level K`` or ``--language-level K`` (``kind``: "visual" or "language"),
    an integer level 0-4, default 0."""
    p.add_argument(f"--{kind}-level", type=int, default=0, choices=LEVELS, metavar="K", help=help)


def add_no_progress(p: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress bar or lines."""
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress (default: a bar on a terminal, else one line per 5%% of the "
        "episodes or per 10 s)",
    )
