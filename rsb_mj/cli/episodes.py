"""``rsb episodes build|check|show``: the frozen episode tables in ``tasks/episodes``.

* ``rsb episodes build [SUITE...]`` regenerates the tables (byte for byte) and the manifest;
  ``rsb episodes build TASK.bddl`` freezes the rows ``rsb eval TASK.bddl`` evaluates
  (:mod:`rsb_mj.tables.task`) into ``episodes/`` beside the task file (or ``--out``);
  ``rsb episodes build GOAL_SUITE... --files FILE...`` refreezes only those task files' rows
  of the goal suites' tables, keeping the other files' rows and ``short`` reasons (the bytes
  of a whole refreeze when nothing else changed; the manifest rewritten atomically);
* ``rsb episodes check [SUITE...]`` verifies sha256 sums against the one manifest and
  rebuilds every table by its family (:mod:`rsb_mj.tables.families`): RSB rows re-drawn
  from their ``(suite, split, index, seed)``, naming each row that drifted; Act2Answer
  tables rebuilt from their items (exit 1);
* ``rsb episodes show SUITE [--split S] [--index I]`` prints one row;
* ``rsb episodes build SUITE|TASK.bddl... --private --secret-file FILE -o DIR`` draws fresh
  eval tables from a secret, and ``rsb episodes check --tables DIR`` verifies them
  (:mod:`rsb_mj.tables.private.build`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

from rsb_mj.atomic import writable_folder
from rsb_mj.cli._flags import add_jobs, add_out
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.files import add_allow_root
from rsb_mj.splits import SPLITS
from rsb_mj.suites import ALL_SUITES, GOAL_SUITES, expand_suites, get_suite, goal_suite


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``episodes`` subcommand."""
    parser = subparsers.add_parser(
        "episodes",
        help="build, check or show the frozen episode tables",
        description="Build, check or show the frozen episode tables (tasks/episodes). "
        "Exit 0 success, 1 failed check, 2 usage or internal error.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="regenerate the tables and their manifest")
    build.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help=f"default: all of {', '.join(ALL_SUITES)}; 'a2a' or A2A-<Category> for "
        f"Act2Answer; a goal suite ({', '.join(GOAL_SUITES)}) freezes its table (minutes; "
        "rsb_mj.tables.layouts); or task files (*.bddl)",
    )
    build.add_argument("--split", choices=(*SPLITS, "both"), default="both")
    add_out(build, "write to this folder instead of tasks/episodes")
    build.add_argument(
        "--rows",
        type=int,
        help="rows per table (default: 500 eval, 1000 train; a goal suite: per task file, 5 "
        "eval, 20 train); use with --out",
    )
    build.add_argument(
        "--private",
        action="store_true",
        help="draw fresh eval tables from --secret-file into --out (questions no shipped "
        "table asks; see rsb_mj.tables.private.build)",
    )
    build.add_argument(
        "--secret-file",
        type=Path,
        metavar="FILE",
        help="the secret of a private draw (at least 16 bytes; never written anywhere)",
    )
    add_jobs(build, "worker processes (the bytes do not depend on it)")
    build.add_argument(
        "--files",
        nargs="+",
        metavar="FILE",
        help="with goal suites: refreeze only these task files' rows (paths, or names as the "
        "manifest lists them, relative to tasks/); the other files' rows and reasons are kept",
    )
    add_allow_root(build)
    check = sub.add_parser("check", help="verify the tables against the manifest and the sampler")
    check.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help="default: every suite (levels included, the A2A suites and the goal suites)",
    )
    check.add_argument("--dir", type=Path, help="check this folder instead of tasks/episodes")
    check.add_argument(
        "--tables",
        type=Path,
        metavar="DIR",
        help="check the private tables in DIR (rsb episodes build --private) without their secret",
    )
    check.add_argument(
        "--secret-file",
        type=Path,
        metavar="FILE",
        help="with --tables: also check that DIR was drawn from this secret",
    )
    show = sub.add_parser("show", help="print one row of a table")
    show.add_argument("suite", metavar="SUITE")
    show.add_argument("--split", choices=SPLITS, default="eval")
    show.add_argument("--index", type=int, default=0)
    show.add_argument("--json", action="store_true", help="print the raw JSON row")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rsb episodes``; returns the exit status."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.families import load_table
    from rsb_mj.tables.private.build import no_private_goal

    goal = [n for n in args.suites if goal_suite(n)] if args.action != "show" else []
    if args.action == "build" and (args.private or args.secret_file):
        refused = no_private_goal(list(args.suites))
        if refused:
            print(f"rsb episodes: error: {refused}", file=sys.stderr)
            return 2
    if getattr(args, "files", None) and (not goal or args.private or args.secret_file):
        print("rsb episodes: error: --files refreezes files of the goal suites named with it")
        return 2
    if goal and not (args.action == "build" and (args.private or args.secret_file)):
        return _goal(args, goal, [n for n in args.suites if n not in goal])
    if args.action == "build" and (args.private or args.secret_file):
        return _build_private(args, expand_suites(list(args.suites)))
    if args.action == "check" and (args.tables or args.secret_file):
        return _check_private(args, expand_suites(list(args.suites)))
    if args.action == "build" and any(s.endswith(".bddl") for s in args.suites):
        return _build_task_files(args)
    if args.action == "build":
        names = expand_suites(list(args.suites))
        if args.out is not None:
            for name in names:  # an unknown suite is refused before any folder is made
                get_suite(name)
            _public_out(args.out)
        return _build(args, names)
    if args.action == "check":
        status = _check(args, expand_suites(list(args.suites)))
        if not args.suites and args.dir is None:  # every table: the goal suites' too
            status = max(status, _check_goal(args, []))
        return status
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.layouts import goal_table

    if goal_suite(args.suite):
        return _show(args, list(goal_table(args.suite, args.split)))
    return _show(args, load_table(args.suite, args.split))


def _public_out(out: Path) -> None:
    """Check that ``-o`` names a folder the public tables can be written to, and not a
    folder of private tables (whose manifest a public build would rewrite).

    Raises:
        WriteError: when ``out`` is (under) a file or cannot be created or written.
        EpisodeError: for a folder of private tables.
    """
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.files import MANIFEST

    manifest = out / MANIFEST
    if manifest.is_file() and b'"private"' in manifest.read_bytes():
        raise EpisodeError(
            f"-o {out}: holds private tables ({manifest}); a public build would rewrite its "
            "manifest: name another folder"
        )
    writable_folder(out, "the tables (-o)")


def _build(args: argparse.Namespace, names: list[str], files: list[Path] | None = None) -> int:
    """``rsb episodes build [SUITE...]``: the tables of the suites named, of any kind
    (:func:`rsb_mj.tables.freeze.freeze_tables`); with no suite named, the RSB suites (the
    Act2Answer tables render every item: name them, or ``a2a``; the goal suites' settle
    every seed: name them)."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.env.settled_layouts import freeze_file
    from rsb_mj.evaluation.legibility import answer_reader
    from rsb_mj.tables.families import family_of
    from rsb_mj.tables.freeze import freeze_tables

    goal = [n for n in names if goal_suite(n)]
    paired = [n for n in names if n not in goal and family_of(n).name == "a2a"]
    if args.rows is not None and args.out is None:
        print("rsb episodes: error: --rows changes the shipped tables; give --out DIR")
        return 2
    if args.rows is not None and paired:
        print("rsb episodes: error: --rows does not apply to Act2Answer tables")
        return 2
    splits = ("eval", "train") if args.split == "both" else (args.split,)
    mapper = None
    if args.jobs > 1:
        # deferred: rsb --help imports every command module, not the stages they run
        from rsb_mj.evaluation.pool import map_jobs

        mapper = partial(map_jobs, workers=args.jobs)
    start = time.perf_counter()
    results = freeze_tables(
        names or None, splits, args.out, args.rows, mapper, reader=answer_reader,
        draw_layouts=freeze_file, files=files, log=partial(print, flush=True),
    )  # fmt: skip
    for r in results:
        state = "rewritten" if r.changed else "unchanged"
        relaxed = f", {r.relaxed} rows without heuristic balance" if r.relaxed else ""
        dropped = f", {len(r.dropped)} items dropped (illegible)" if r.suite in paired else ""
        short = f", {len(r.short)} task files short (see the manifest)" if r.short else ""
        print(
            f"{r.path.name:32} {r.rows:5d} rows  sha256 {r.sha256[:16]}  "
            f"{state}{relaxed}{dropped}{short}"
        )
    print(f"built {len(results)} tables in {time.perf_counter() - start:.1f} s")
    return 0


def _check(args: argparse.Namespace, names: list[str]) -> int:
    """``rsb episodes check [SUITE...]``: every table against the one manifest, by family."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.families import check_tables

    start = time.perf_counter()
    problems = check_tables(names or None, args.dir, complete=args.dir is None)
    for line in problems:
        print(line)
    took = time.perf_counter() - start
    if problems:
        print(f"FAILED: {len(problems)} problems ({took:.1f} s); rebuild with: rsb episodes build")
        return 1
    print(f"OK: every table matches its manifest and re-draws byte for byte ({took:.1f} s)")
    return 0


def _build_private(args: argparse.Namespace, names: list[str]) -> int:
    """``rsb episodes build SUITE|TASK.bddl... --private --secret-file FILE -o DIR``."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.private.build import build_private
    from rsb_mj.tables.private.secret import Secret

    missing = [
        flag
        for flag, value in (
            ("--private", args.private),
            ("--secret-file", args.secret_file),
            ("-o DIR", args.out),
        )
        if not value
    ]
    if missing:
        print(f"rsb episodes: error: a private draw needs {', '.join(missing)}")
        return 2
    if not names:
        print("rsb episodes: error: name the suites or task files to draw privately")
        return 2
    if args.split == "train":
        print("rsb episodes: error: a private draw has eval tables only (--split eval)")
        return 2
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.evaluation.legibility import answer_reader

    secret = Secret.read(args.secret_file, warn=_warn)
    start = time.perf_counter()
    results = build_private(names, secret, args.out, args.rows, reader=answer_reader, log=_note)
    for r in results:
        state = "rewritten" if r.changed else "unchanged"
        dropped = f", {len(r.dropped)} items dropped (illegible)" if r.dropped else ""
        print(f"{r.path.name:32} {r.rows:5d} rows  sha256 {r.sha256[:16]}  {state}{dropped}")
    print(
        f"drew {len(results)} private tables in {time.perf_counter() - start:.1f} s into "
        f"{args.out} (secret id {secret.id[:12]}); keep the folder and the secret private"
    )
    return 0


def _note(message: str) -> None:
    """A line of the private builder: its warnings to stderr, the rest to stdout."""
    if message.startswith("warning: "):
        _warn(message.removeprefix("warning: "))
    else:
        print(message)


def _warn(message: str) -> None:
    print(f"rsb episodes: warning: {message}", file=sys.stderr)


def _check_private(args: argparse.Namespace, names: list[str]) -> int:
    """``rsb episodes check [SUITE...] --tables DIR [--secret-file FILE]``."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.private.check import check_private
    from rsb_mj.tables.private.secret import Secret

    if args.tables is None:
        print("rsb episodes: error: --secret-file checks a private folder: give --tables DIR")
        return 2
    secret = Secret.read(args.secret_file, warn=_warn) if args.secret_file else None
    start = time.perf_counter()
    problems = check_private(args.tables, names or None, secret)
    for line in problems:
        print(line)
    took = time.perf_counter() - start
    if problems:
        print(f"FAILED: {len(problems)} problems in {args.tables} ({took:.1f} s)")
        return 1
    print(
        f"OK: every private table in {args.tables} matches its manifest, re-draws from its "
        f"seeds and asks only held-out questions ({took:.1f} s)"
    )
    return 0


def _goal(args: argparse.Namespace, goal: list[str], others: list[str]) -> int:
    """``rsb episodes build|check`` naming goal suites (:mod:`rsb_mj.tables.layouts`): their
    tables frozen or checked; other suites named with them are refused (name them apart)."""
    if others:
        print(
            f"rsb episodes: error: name goal suites ({', '.join(goal)}) and other suites or "
            f"task files ({', '.join(others)}) in separate commands"
        )
        return 2
    if args.action == "check" and (args.tables or args.secret_file):
        print("rsb episodes: error: goal suites have no private tables (--tables)")
        return 2
    if args.action == "check":
        return _check_goal(args, goal)
    if args.rows is not None and args.out is None:
        print("rsb episodes: error: --rows changes the shipped tables; give --out DIR")
        return 2
    if args.out is not None:
        _public_out(args.out)
    files = None
    if args.files:
        picked = _goal_files(goal, args.files)
        if isinstance(picked, str):
            print(f"rsb episodes: error: {picked}")
            return 2
        files = [path for paths in picked.values() for path in paths]
    return _build(args, goal, files)


def _goal_files(names: list[str], given: list[str]) -> dict[str, list[Path]] | str:
    """The task files ``given`` (``--files``) per table-owning goal suite of ``names`` (a
    file of several owners under each), or why one is refused: a file of none of them."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.resources import tasks_dir
    from rsb_mj.tables.layouts import table_suite_of, task_key

    owners = list(dict.fromkeys(table_suite_of(n).name for n in names))
    keyed = {o: {task_key(p): p for p in GOAL_SUITES[o].files} for o in owners}
    out: dict[str, list[Path]] = {}
    for name in given:
        path = Path(name) if Path(name).is_file() else tasks_dir() / name
        try:
            key = task_key(path)
        except ValueError:
            key = name
        hit = [o for o in owners if key in keyed[o]]
        if not hit:
            return f"{name}: not a task file of {' or '.join(owners)}"
        for owner in hit:
            out.setdefault(owner, []).append(keyed[owner][key])
    return out


def _check_goal(args: argparse.Namespace, names: list[str]) -> int:
    """``rsb episodes check [GOAL SUITE...]``: the goal tables re-drawn row by row."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.env.settled_layouts import redraw_file
    from rsb_mj.tables.layouts import check_layout_tables, short_files, table_suite_of, table_suites

    start = time.perf_counter()
    problems = check_layout_tables(names or None, redraw_file, args.dir, complete=args.dir is None)
    for line in problems:
        print(line)
    took = time.perf_counter() - start
    owners = [table_suite_of(n).name for n in names] if names else [s.name for s in table_suites()]
    if args.dir is None:  # the shipped tables' short files: valid, but never run (RSB535)
        for owner in dict.fromkeys(owners):
            for task, why in short_files(owner, "eval").items():
                print(
                    f"note: {owner}.eval.jsonl: {task}: short, {why}; rsb eval --suite and "
                    "the vla-eval plugin leave it out (rsb lint: RSB535)"
                )
    if problems:
        print(
            f"FAILED: {len(problems)} problems in the goal tables ({took:.1f} s); refreeze "
            "with: rsb episodes build vla-arena libero-layouts"
        )
        return 1
    print(
        "OK: every goal table matches its manifest, each row re-draws from its seed and "
        f"each eval row settles into a valid start ({took:.1f} s)"
    )
    return 0


def _show(args: argparse.Namespace, table: list) -> int:
    """Print row ``args.index`` of ``table`` (a question suite's or a goal suite's: a goal
    row's seed, draw and poses)."""
    if not 0 <= args.index < len(table):
        print(f"rsb episodes: error: index {args.index} outside 0..{len(table) - 1}")
        return 2
    episode = table[args.index]
    if args.json:
        print(json.dumps(episode.to_dict(), ensure_ascii=False, indent=2))
        return 0
    if goal_suite(args.suite):
        skipped = f"; seeds skipped before it: {list(episode.skipped)}" if episode.skipped else ""
        print(f"{episode.suite} {episode.split} {episode.task} row {episode.index} (seed "
              f"{episode.seed}, draw {episode.draw}){skipped}")  # fmt: skip
        for obj, (x, y, z, yaw) in episode.layout.items():
            print(f"  {obj} at x={x:+.3f} y={y:+.3f} z={z:.3f} yaw={yaw:+.2f}")
        return 0
    print(f"{episode.suite} {episode.split} row {episode.index} (seed {episode.seed})")
    print(f"question {episode.question_id}; template {episode.template_id}")
    print(f"instruction: {episode.instruction}")
    for letter in episode.letters:
        obj = episode.mapping[letter]
        pose = episode.layout[obj]
        mark = "  <- correct" if letter == episode.correct else ""
        print(
            f"  ({letter}) {episode.options[episode.letters.index(letter)]!s:.40}  {obj} "
            f"{episode.colors[obj]} at x={pose.x:+.3f} y={pose.y:+.3f} yaw={pose.yaw:+.2f}{mark}"
        )
    for obj, placed in episode.distractors.items():
        pose = placed.pose
        print(
            f"  distractor {obj} {placed.color} at x={pose.x:+.3f} y={pose.y:+.3f} "
            f"yaw={pose.yaw:+.2f}"
        )
    return 0


def _build_task_files(args: argparse.Namespace) -> int:
    """``rsb episodes build TASK.bddl...``: freeze the rows ``rsb eval`` runs of each file."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.tables.task import build_task_tables

    others = [s for s in args.suites if not s.endswith(".bddl")]
    if others:
        print(f"rsb episodes: error: give suites or task files, not both ({others[0]})")
        return 2
    if args.out is not None:
        _public_out(args.out)
    splits = ("eval", "train") if args.split == "both" else (args.split,)
    start = time.perf_counter()
    count = 0
    for task in args.suites:
        for r in build_task_tables(task, splits, args.out, args.rows):
            state = "rewritten" if r.changed else "unchanged"
            print(f"{r.path}  {r.rows:5d} rows  sha256 {r.sha256[:16]}  {state}")
            count += 1
    print(f"built {count} tables in {time.perf_counter() - start:.1f} s")
    return 0
