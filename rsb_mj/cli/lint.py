"""``rsb lint PATH...``: check task files (``*.bddl``) and template files (``templates/*.txt``).

Exit status: 0 clean, 1 findings (errors or warnings), 2 usage or internal error.
``rsb lint --explain CODE`` prints a rule's documentation with a bad and a good example;
``rsb lint --rules`` lists every rule.

Files are linted in this process, in order (300 LIBERO / VLA-Arena files take about a second
and a half of CPU cold, a third of it the goal rules' frame-map search, RSB532; see
``tools/bench_lint.py``; a second process gained nothing on 2 shared cores), so
``--jobs`` is deprecated: it is accepted and ignored, with a note on stderr. Every run lints
every file afresh; ``--no-cache`` (from when results were cached) is accepted and changes
nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.lang.files import add_allow_root, iter_files

if TYPE_CHECKING:  # pragma: no cover
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
        help="check the files as scenes rsb_mj must build and run: a goal task (a LIBERO / "
        "VLA-Arena file) of a tier rsb_mj does not build is then an error too (RSB530)",
    )
    add_allow_root(parser)
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="accepted for old scripts: every file is linted afresh",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help=argparse.SUPPRESS,  # deprecated and ignored: files are linted in this process
    )
    parser.set_defaults(func=run)


class InternalError(Exception):
    """A file made the linter fail (a bug): names the file and the original error."""


def lint_file(path: Path, *, target: str | None = None) -> tuple[str | None, list]:
    """:func:`rsb_mj.lang.linter.lint_file` (imported on first use: ``--explain`` and usage
    errors skip the parser and the rules), and for a shipped goal file whose frozen table is
    short, RSB535 (:func:`rsb_mj.tables.layouts.short_table_findings`: the tables' stage, after
    the linter's)."""
    from rsb_mj.lang.linter import lint_file as lint

    text, diagnostics = lint(path, target=target)
    parsed = text is not None and not any(d.code.startswith("RSB1") for d in diagnostics)
    if parsed and _in_goal_suite(path):  # the tables (and numpy) only for shipped goal files
        from rsb_mj.tables.layouts import short_table_findings

        diagnostics = [*diagnostics, *short_table_findings(path, text, target=target)]
    return text, diagnostics


def _in_goal_suite(path: Path) -> bool:
    """Whether ``path`` lies in a shipped goal suite's folder (``tasks/libero``,
    ``tasks/vla_arena``)."""
    from rsb_mj.resources import tasks_dir
    from rsb_mj.suites import GOAL_SUITES

    resolved = path.resolve()
    root = tasks_dir().resolve()
    return any(resolved.is_relative_to(root / s.folder) for s in GOAL_SUITES.values())


def _lint_one(path: Path, target: str | None = None) -> tuple[str | None, list]:
    try:
        return lint_file(path, target=target)
    except Exception as exc:  # reported with the file's name, never as a traceback
        raise InternalError(f"{path}: {exc!r}") from None


def lint_all(files: list[Path], target: str | None = None) -> list[tuple[str | None, list]]:
    """``lint_file`` of every file, in order; ``target`` as
    :func:`rsb_mj.lang.linter.lint_file` takes it.

    Raises:
        InternalError: naming the first file on which :func:`lint_file` failed (a bug).
    """
    return [_lint_one(path, target) for path in files]


#: What ``--jobs`` prints (it is accepted for old scripts and ignored).
JOBS_DEPRECATED = (
    "rsb lint: note: --jobs is deprecated and ignored; files are linted in this process "
    "(a second process gained nothing on 2 cores)"
)


def find_rule(key: str) -> Rule | None:
    """The rule with code or name ``key`` (case-insensitive), or None."""
    from rsb_mj.lang.rules.base import RULES

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


def findings_of(files: list[Path], target: str | None) -> list[list[dict[str, Any]]]:
    """Per file (in order), its findings (see :func:`_finding`).

    Raises:
        InternalError: naming the first file on which the linter failed (a bug).
    """
    others: dict[str, str | None] = {}
    return [
        [_finding(d, _source(d, path, text, others)) for d in diagnostics]
        for path, (text, diagnostics) in zip(files, lint_all(files, target), strict=True)
    ]


def _source(
    diagnostic: Any, path: Path, text: str | None, others: dict[str, str | None]
) -> str | None:
    """The text a diagnostic's line is shown from: the linted file's, or the file the finding
    is in (a question bank, a template file: read once, None when unreadable)."""
    if diagnostic.path == str(path):
        return text
    if diagnostic.path not in others:
        try:
            others[diagnostic.path] = Path(diagnostic.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            others[diagnostic.path] = None
    return others[diagnostic.path]


def run(args: argparse.Namespace) -> int:
    """Run ``rsb lint``; returns the exit status."""
    if args.explain or args.rules:
        from rsb_mj.lang.rules.base import RULES
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
    if args.jobs is not None:
        print(JOBS_DEPRECATED, file=sys.stderr)
    try:
        results = findings_of(files, args.target)
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
