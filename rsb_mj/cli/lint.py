"""``rsb lint PATH...``: check task files (``*.bddl``) and template files (``templates/*.txt``).

Exit status: 0 clean, 1 findings (errors or warnings), 2 usage or internal error.
``rsb lint --explain CODE`` prints a rule's documentation with a bad and a good example;
``rsb lint --rules`` lists every rule.
"""

from __future__ import annotations

import argparse
import json
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
    parser.set_defaults(func=run)


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
    findings = []
    for path in files:
        try:
            text, diagnostics = lint_file(path)
        except Exception as exc:  # report it, never a traceback
            print(f"rsb lint: internal error on {path}: {exc!r}", file=sys.stderr)
            return 2
        findings.extend((text, d) for d in diagnostics)
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
