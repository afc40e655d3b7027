"""``rsb lint PATH...``: check task files (``*.bddl``) and template files (``templates/*.txt``).

Exit status: 0 clean, 1 findings (errors or warnings), 2 usage or internal error.
``rsb lint --explain CODE`` prints a rule's documentation with a bad and a good example;
``rsb lint --rules`` lists every rule.

Many files are linted by forked worker processes (``--jobs``; by default one per CPU from
:data:`PARALLEL_FROM` files on, where the fork start method exists); the output is the same,
in file order, whatever the number of workers.

Results are cached per file (:mod:`rsb_mj.lang.cache`): an unchanged file under an unchanged
linter is not parsed again, and a run whose files are all cached does not even import the
parser and the rules. ``--no-cache`` lints every file afresh.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.lang.files import add_allow_root, iter_files

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.lang.cache import LintCache
    from rsb_mj.lang.rules import Rule


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
    add_allow_root(parser)
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="lint every file afresh; neither read nor write the result cache",
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


def lint_file(path: Path, *, target: str | None = None) -> tuple[str | None, list]:
    """:func:`rsb_mj.lang.linter.lint_file` (imported on first use: cached runs skip it)."""
    from rsb_mj.lang.linter import lint_file as lint

    return lint(path, target=target)


def _lint_one(path: Path, target: str | None = None) -> tuple[str | None, list]:
    try:
        return lint_file(path, target=target)
    except Exception as exc:  # re-raised in the parent with the file's name
        raise InternalError(f"{path}: {exc!r}") from None


def _workers(jobs: int, n_files: int) -> int:
    """How many processes lint ``n_files`` files (1: this one)."""
    if jobs == 1 or (jobs == 0 and n_files < PARALLEL_FROM):
        return 1
    import multiprocessing  # (about 15 ms: only when workers may be forked)

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if jobs > 0:
        return min(jobs, n_files)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, n_files // (PARALLEL_FROM // 2)))


def lint_all(
    files: list[Path], jobs: int = 0, target: str | None = None
) -> list[tuple[str | None, list]]:
    """``lint_file`` of every file, in order, over ``jobs`` processes (0: automatic): this one
    and ``jobs - 1`` forked workers; ``target`` as :func:`rsb_mj.lang.linter.lint_file` takes it.

    Raises:
        InternalError: naming the first file on which :func:`lint_file` failed (a bug).
    """
    workers = _workers(jobs, len(files)) if len(files) > 1 else 1
    if workers <= 1:
        return [_lint_one(path, target) for path in files]
    import functools
    import multiprocessing

    import rsb_mj.lang.linter  # noqa: F401  (imported once, before the workers fork)

    lint_one = functools.partial(_lint_one, target=target)
    # This process lints the first share itself while workers - 1 forked ones lint the rest.
    mine = len(files) // workers
    chunk = max(1, (len(files) - mine) // ((workers - 1) * 4))
    # What the workers inherit stays out of their garbage collections: a collection would
    # otherwise touch (and so copy) every inherited page.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers - 1) as pool:
            rest = pool.map_async(lint_one, files[mine:], chunksize=chunk)
            head = [lint_one(path) for path in files[:mine]]
            return head + rest.get()
    finally:
        gc.unfreeze()


def find_rule(key: str) -> Rule | None:
    """The rule with code or name ``key`` (case-insensitive), or None."""
    from rsb_mj.lang.linter import RULES

    key = key.strip()
    for rule in RULES.values():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None


def _finding(diagnostic: Any, text: str | None) -> dict[str, Any]:
    """What the output needs of one diagnostic: error flag, rendered text, JSON object."""
    return {
        "error": diagnostic.is_error,
        "text": diagnostic.render(text),
        "json": diagnostic.to_dict(),
    }


def findings_of(
    files: list[Path], jobs: int, target: str | None, cache: LintCache | None
) -> list[list[dict[str, Any]]]:
    """Per file (in order), its findings (see :func:`_finding`): from ``cache`` when the file
    is unchanged, else linted (over ``jobs`` workers) and stored in it.

    Raises:
        InternalError: naming the first file on which the linter failed (a bug).
    """
    results: list[list[dict[str, Any]] | None] = [None] * len(files)
    keys: dict[int, str] = {}
    if cache is not None:
        for i, path in enumerate(files):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # the linter reports it (RSB104)
            keys[i] = cache.key(path, target, text)
            results[i] = cache.get(keys[i])
    todo = [i for i, found in enumerate(results) if found is None]
    if todo:
        linted = lint_all([files[i] for i in todo], jobs, target)
        for i, (text, diagnostics) in zip(todo, linted, strict=True):
            results[i] = [_finding(d, text) for d in diagnostics]
            if cache is not None and text is not None and cache.cacheable(text):
                cache.put(cache.key(files[i], target, text), results[i])
    if cache is not None:
        cache.save(keep=set(keys.values()))
    return [found or [] for found in results]


def run(args: argparse.Namespace) -> int:
    """Run ``rsb lint``; returns the exit status."""
    if args.explain or args.rules:
        from rsb_mj.lang.linter import RULES
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
    cache = None
    if not args.no_cache:
        from rsb_mj.lang.cache import LintCache  # (hashing and JSON: not paid by --no-cache)

        cache = LintCache.open()
    try:
        results = findings_of(files, args.jobs, args.target, cache)
    except InternalError as exc:  # report it, never a traceback
        print(f"rsb lint: internal error on {exc}", file=sys.stderr)
        return 2
    findings = [f for found in results for f in found]
    if args.format == "json":
        import json

        print(json.dumps([f["json"] for f in findings], indent=2))
    else:
        if findings:
            print("\n".join(f["text"] for f in findings))
        errors = sum(1 for f in findings if f["error"])
        warnings = len(findings) - errors
        print(
            f"{len(files)} file{'s' if len(files) != 1 else ''} checked: "
            f"{errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''}"
        )
    return 1 if findings else 0
