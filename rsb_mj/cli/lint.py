"""``rsb lint PATH...``: check task files (``*.bddl``) and template files (``templates/*.txt``).

Exit status: 0 clean, 1 findings (errors or warnings), 2 usage or internal error.
``rsb lint --explain CODE`` prints a rule's documentation with a bad and a good example;
``rsb lint --rules`` lists every rule.

Many files are linted by forked worker processes (``--jobs``; by default one per CPU from
:data:`PARALLEL_FROM` files on, where the fork start method exists); the output is the same,
in file order, whatever the number of workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rsb_mj.lang.linter import iter_files, lint_file
from rsb_mj.lang.rules import RULES, Rule


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``lint`` subcommand."""
    parser = subparsers.add_parser(
        "lint",
        help="check task files and instruction templates",
        description="Check task files (*.bddl) and template files (templates/*.txt). "
        "Exit 0 clean, 1 findings, 2 usage or internal error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (text)"
    )
    parser.add_argument("--explain", metavar="CODE", help="print the documentation of a rule")
    parser.add_argument("--rules", action="store_true", help="list every rule and exit")
    parser.add_argument(
        "--target",
        choices=("rsb",),
        default=None,
        help="check the files as scenes rsb_mj must build (what the environment asks): a "
        "LIBERO / VLA-Arena file then lists every part rsb_mj cannot build (RSB510)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="worker processes (default 0: one per CPU when there are many files)",
    )
    parser.set_defaults(func=run)


#: Fewest files for which ``--jobs 0`` forks workers (below, forking costs more than it saves).
PARALLEL_FROM = 64


class InternalError(Exception):
    """A file made the linter fail (a bug): names the file and the original error."""


def _lint_one(path: Path, target: str | None = None) -> tuple[str | None, list]:
    try:
        return lint_file(path, target=target)
    except Exception as exc:  # re-raised in the parent with the file's name
        raise InternalError(f"{path}: {exc!r}") from None


def _workers(jobs: int, n_files: int) -> int:
    """How many processes lint ``n_files`` files (1: this one)."""
    if jobs == 0 and n_files < PARALLEL_FROM:
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if jobs > 0:
        return min(jobs, n_files)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, n_files // (PARALLEL_FROM // 2)))


def lint_all(
    files: list[Path], jobs: int = 0, target: str | None = None
) -> list[tuple[str | None, list]]:
    """``lint_file`` of every file, in order, over ``jobs`` forked workers (0: automatic);
    ``target`` as :func:`rsb_mj.lang.linter.lint_file` takes it.

    Raises:
        InternalError: naming the first file on which :func:`lint_file` failed (a bug).
    """
    workers = _workers(jobs, len(files)) if len(files) > 1 else 1
    if workers <= 1:
        return [_lint_one(path, target) for path in files]
    import functools
    import multiprocessing

    chunk = max(1, len(files) // (workers * 4))
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(functools.partial(_lint_one, target=target), files, chunksize=chunk)


def find_rule(key: str) -> Rule | None:
    """The rule with code or name ``key`` (case-insensitive), or None."""
    key = key.strip()
    for rule in RULES.values():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``rsb lint``; returns the exit status."""
    if args.explain:
        rule = find_rule(args.explain)
        if rule is None:
            print(
                f"rsb lint: error: unknown rule {args.explain!r}; valid choices: "
                f"{', '.join(sorted(RULES))} (or their names, see rsb lint --rules)",
                file=sys.stderr,
            )
            return 2
        print(rule.explain(), end="")
        return 0
    if args.rules:
        for rule in sorted(RULES.values(), key=lambda r: r.code):
            print(f"{rule.code}  {rule.name:32} {rule.severity}")
        return 0
    if not args.paths:
        print("rsb lint: error: give at least one PATH (file or folder)", file=sys.stderr)
        return 2
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"rsb lint: error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    files = list(iter_files(args.paths))
    if not files:
        print(
            f"rsb lint: error: no task files (*.bddl) or template files under "
            f"{', '.join(args.paths)}",
            file=sys.stderr,
        )
        return 2
    if args.jobs < 0:
        print(f"rsb lint: error: --jobs must be >= 0, got {args.jobs}", file=sys.stderr)
        return 2
    try:
        results = lint_all(files, args.jobs, args.target)
    except InternalError as exc:  # report it, never a traceback
        print(f"rsb lint: internal error on {exc}", file=sys.stderr)
        return 2
    findings = [(text, d) for text, diagnostics in results for d in diagnostics]
    if args.format == "json":
        print(json.dumps([d.to_dict() for _, d in findings], indent=2))
    else:
        for text, d in findings:
            print(d.render(text))
        errors = sum(1 for _, d in findings if d.is_error)
        warnings = len(findings) - errors
        print(
            f"{len(files)} file{'s' if len(files) != 1 else ''} checked: "
            f"{errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''}"
        )
    return 1 if findings else 0
