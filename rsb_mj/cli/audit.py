"""``rsb audit SUITE...``: the shortcut audit of episode tables.

Checks that nothing but the question's meaning predicts the correct option: the correct
letter, position, color and numeric rank are uniform (chi-square), every text-only heuristic
(the "nice number", digit and magnitude probes included) sits inside the 95% chance band,
on an eval table the per-value answer prior and the linear text-only classifier fitted on
the suite's train table do too, the answer never appears outside the option list, the
question ids belong to the table's split and no eval question near-duplicates a train
question. Prints instruction-length statistics. Each table gets its family's audit
(:mod:`rsb_mj.tables.families`: an Act2Answer table the paired audit, side, arrangement,
letter and picture features), whatever its choice count.
``rsb audit --tables DIR`` audits the private tables of a folder
(:func:`rsb_mj.tables.private.audit.audit_private`: the same audit, the suite's shipped train
table for the fitted probes, and no question of a shipped table).
Exit 0 when every table passes, 1 when one fails (the failing checks are printed), 2 on
usage errors.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rsb_mj.episodes.sources import resolve_source
from rsb_mj.splits import SPLITS
from rsb_mj.suites import SUITES, expand_suites, get_suite


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``audit`` subcommand."""
    parser = subparsers.add_parser(
        "audit",
        help="check episode tables for answer shortcuts",
        description="Shortcut audit of frozen episode tables. Exit 0 pass, 1 fail, 2 usage.",
    )
    parser.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help="suites, 'a2a' for Act2Answer, or task files (TASK.bddl: the rows rsb eval draws "
        "from it; default: the six RSB suites)",
    )
    parser.add_argument("--split", choices=SPLITS, default="eval")
    parser.add_argument(
        "--table",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="audit this JSONL table instead (repeatable)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        metavar="DIR",
        help="audit the private tables in DIR (rsb episodes build --private; SUITE names "
        "some of them), each eval table with its suite's shipped train table",
    )
    parser.add_argument(
        "--train",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="train table the fitted probes learn from, one per --table (default for the "
        "shipped eval tables: the suite's shipped train table)",
    )
    parser.add_argument(
        "--max-words",
        type=int,
        metavar="N",
        help="also fail on instructions longer than N words (tokenizer limits)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rsb audit``; returns the exit status."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.families import audit_rows, load_table
    from rsb_mj.tables.files import read_table

    if args.tables is not None:
        return _private(args, expand_suites(list(args.suites)))
    if args.train and len(args.train) != len(args.table):
        print(f"rsb audit: error: {len(args.train)} --train for {len(args.table)} --table")
        return 2
    tasks = [s for s in args.suites if s.endswith(".bddl")]
    if tasks and args.table:
        print("rsb audit: error: a task file is audited by its own rows; give it without --table")
        return 2
    trains = [read_table(path) for path in args.train] or [None] * len(args.table)
    tables = [(str(p), read_table(p), t, None) for p, t in zip(args.table, trains, strict=True)]
    if not args.table:
        suites = [s for s in args.suites if s not in tasks]
        for name in expand_suites(suites) or ([] if tasks else list(SUITES)):
            suite = get_suite(name)
            train = load_table(suite.name, "train") if args.split == "eval" else None
            rows = load_table(suite.name, args.split)
            tables.append((f"{suite.name} {args.split}", rows, train, None))
        tables += [_task_rows(task, args.split) for task in tasks]
    reports = [
        audit_rows(rows, label, args.max_words, train, source)
        for label, rows, train, source in tables
    ]
    return _print(args, reports)


def _task_rows(task: str, split: str) -> tuple[str, list, list | None, object]:
    """A task file's audit input: the rows ``rsb eval TASK`` evaluates (as many as a suite's
    table holds: :func:`rsb_mj.tables.task.task_rows`), the train rows for the
    fitted probes of an eval audit, and the task's question source (its own bank, for one
    with ``(:source (:file ...))``)."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.lang import load_task
    from rsb_mj.lang.task import task_of
    from rsb_mj.tables.rsb import default_rows
    from rsb_mj.tables.task import task_rows

    rows = task_rows(task, split, default_rows(split))
    train = task_rows(task, "train", default_rows("train")) if split == "eval" else None
    source = resolve_source(task_of(load_task(task)).asked().source)
    return f"{task} {split}", rows, train, source


def _private(args: argparse.Namespace, names: list[str]) -> int:
    """``rsb audit --tables DIR [SUITE...]``: the private tables of a folder."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.private.audit import audit_private

    if args.table or args.train or args.split != "eval":
        print("rsb audit: error: --tables audits a private folder's eval tables alone")
        return 2
    return _print(args, audit_private(args.tables, names or None, args.max_words))


def _print(args: argparse.Namespace, reports: list) -> int:
    """Print ``reports`` (text or JSON); 0 when every table passed, else 1."""
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        print("\n\n".join(r.format() for r in reports))
        failed = [r for r in reports if not r.passed]
        if failed:
            print(f"\nFAILED: {len(failed)} of {len(reports)} tables")
            for r in failed:
                for c in r.failures:
                    print(f"  {r.label}: {c.name}: {c.detail}")
        else:
            print(f"\nPASSED: {len(reports)} tables")
    return 0 if all(r.passed for r in reports) else 1
