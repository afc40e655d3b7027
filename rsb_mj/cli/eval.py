"""``rsb eval``: evaluate policies on suites; resumable; prints the GSR/TSR/nSG table.

Example (the README main job)::

    rsb eval --suite all --policy expert --policy random-grasp --episodes 5 --out runs/quick
    rsb eval tasks/rsb_math_4_objects.bddl --policy expert --episodes 20 --out runs/objects
    rsb eval --suite RSB-Math-4 --tables private/ --policy expert --episodes 50 --out runs/p

Rerunning the same command resumes: finished episodes are kept, the rest run, and episodes
that ended in an error (a fault outside the policy: a simulator exception, a worker that
died, the connection to a policy server) are retried. Errors are never scored. The policy's
own faults (it raised, sent a bad action, hung, its server answered garbage) are its
failures: scored, in the ``faults`` column, listed on stderr, never retried
(:mod:`rsb_mj.evaluation.faults`).

Your own policy (``--policy my_pkg.my_policy:make`` or ``--policy path/to/my_policy.py:make``,
found from the current folder) runs in a policy process of its own: whatever it does (raise,
even KeyboardInterrupt; exit; crash; fork) ends only its episode, as its failure, and the
run goes on. ``--policy inprocess:...`` runs it inside rsb for debugging; such runs are
marked privileged and never ranked.

Exit status: 0 every episode scored; 2 usage error (e.g. a --name over 64 characters),
unwritable --out or RSB_MJ_CACHE, an --assets folder whose objects cannot be built (all
checked before the first episode), another run on the same --out, or a policy that fails
its start-up check (e.g. an unreachable policy server,
reported within --connect-timeout); 3 the run finished but some episodes ended in errors
(listed on stderr; rerun the same command to retry them).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rsb_mj.cli._flags import add_episodes, add_jobs, add_level, add_no_progress, add_out
from rsb_mj.errors import EvalError
from rsb_mj.lang.files import add_allow_root
from rsb_mj.rates import CONTROL_HZ, CONTROL_RATES
from rsb_mj.splits import SPLITS
from rsb_mj.suites import GOAL_SUITES, SUITES

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.evaluation.run_sources import GoalRun

#: Exit status of a run that finished with error records remaining.
EXIT_ERRORS = 3
#: The longest ``--name`` [characters]: it names report files (``confusion_<name>.png``).
MAX_NAME_CHARS = 64


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate policies on suites (GSR, TSR, nSG); resumable",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK.bddl",
        help="task files to evaluate (any lint-clean task file, e.g. the Beyond Blocks ones); "
        "row i is the episode drawn from a seed fixed by (file name, split, i)",
    )
    p.add_argument(
        "--suite",
        action="append",
        default=[],
        metavar="NAME",
        help=f"suite name, 'all', 'all-L1' or 'a2a' (repeatable): {', '.join(SUITES)}, each "
        "also at -L1 (static distractors), A2A-<Category>; or a task file; goal suites "
        "(LIBERO/VLA-Arena layouts on Aloha, episodes are the rows of their frozen tables, "
        f"--split eval|train): {', '.join(GOAL_SUITES)}",
    )
    p.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="SPEC",
        help="noop | expert | random-grasp | nearest | try-all | nearest-to-zone | "
        "fixed-letter | fixed-position | openpi:HOST:PORT[:HORIZON] | module:factory | "
        "path/to/file.py:factory (your own, run in a policy process that gets only the "
        "observation, instruction and spaces) | inprocess:module:factory (your own in rsb's "
        "process, for debugging: marked privileged, never ranked) | lerobot:PATH[,KEY=VALUE...] "
        "(a LeRobot checkpoint) (repeatable)",
    )
    p.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="LABEL",
        help="the policy's name in records and reports instead of its spec, one per --policy "
        "in the same order (a file spec names the file as written: from another folder it "
        "would be another policy; the label also fixes the policy's seed)",
    )
    p.add_argument(
        "--forget",
        action="append",
        default=[],
        metavar="POLICY",
        help="drop every record of POLICY (its name as records and reports show it) from "
        "--out, then run the --policy given, if any (repeatable)",
    )
    add_episodes(
        p,
        "episodes per suite (default 10; a goal suite: every row of its frozen table, 5 eval "
        "or 20 train per task file)",
        default=None,
    )
    add_out(p, "run directory (resumed if present); required except for goal task files")
    p.add_argument("--split", default="eval", choices=SPLITS)
    p.add_argument(
        "--tables",
        type=Path,
        metavar="DIR",
        help="run the private eval tables in DIR (rsb episodes build --private) instead of "
        "the shipped ones, checked against DIR's manifest; records name its sha256, not rows",
    )
    p.add_argument("--start", type=int, default=0, help="first episode index (default 0)")
    add_jobs(p, "worker processes (default: min(2, CPUs))", default=min(2, os.cpu_count() or 1),
             old=("--workers",))  # fmt: skip
    p.add_argument(
        "--batch",
        type=int,
        default=1,
        metavar="B",
        help="episodes each worker runs at once in lockstep (default 1): the observations "
        "waiting for actions go to the policy as one batched query when it takes batches "
        "(act_batch, an openpi server advertising max_batch_size), else one by one; records "
        "are the same as without --batch",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run episodes as Ray tasks: on the Ray cluster at ADDRESS (e.g. HEAD_IP:6379), "
        "or without ADDRESS on a local cluster of --jobs CPUs started for the run "
        '(127.0.0.1 only); needs pip install "rsb_mj[ray]"',
    )
    p.add_argument("--max-steps", type=int, default=None, help="override the suite step limit")
    p.add_argument(
        "--assets",
        default=None,
        metavar="DIR",
        help="goal tasks: build objects from your own LIBERO or VLA-Arena asset folder "
        "(libero/libero/assets, vla_arena/vla_arena/assets) instead of the shipped stand-ins; "
        "default $RSB_MJ_ASSETS, else an installed libero/vla_arena package's assets/",
    )
    p.add_argument(
        "--video",
        type=int,
        action="append",
        default=[],
        metavar="INDEX",
        help="write the head camera of episode INDEX to OUT/videos/ (repeatable)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds to connect to a policy server, also the start-up check (default 5)",
    )
    p.add_argument(
        "--request-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds a policy server, or a file or module policy once built, may take to "
        "answer one query (default 60); past it a file or module policy's episode is its "
        "failure, a server's an error retried on resume (in a sealed run, its failure)",
    )
    p.add_argument(
        "--episode-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="wall-clock seconds per episode (default 600); past it while waiting for the "
        "policy, the episode is the policy's failure, else an error retried on resume",
    )
    add_no_progress(p)
    add_level(
        p,
        "visual",
        "VLA-Arena visual perturbation V0-V4: light, +colors, +camera, +sensor noise (default "
        "0; recorded in each record's sim.perturbation; goal tasks: in their records' "
        "visual_level)",
    )
    p.add_argument(
        "--a2a-start",
        default="held",
        choices=("held", "table"),
        help="Act2Answer: the cube starts in the left gripper, as the paper runs it (held, "
        "default), or on the table with the hands empty, adding a grasp (table)",
    )
    add_level(
        p,
        "language",
        "VLA-Arena language perturbation W0-W4: K WordNet substitutes in the command part of "
        "the instruction, or in a goal task's :language (default 0)",
    )
    p.add_argument(
        "--control-hz",
        type=int,
        default=CONTROL_HZ,
        choices=CONTROL_RATES,
        metavar="HZ",
        help="control rate of the environments: 20 (default) or 50 (openpi's ALOHA rate); "
        "suite step limits keep their duration (400 steps at 20 Hz = 1000 at 50 Hz); "
        "a run directory keeps its rate",
    )
    p.add_argument(
        "--instruction",
        action="append",
        default=[],
        metavar="MODE",
        help="also run every episode with the instruction ablated (repeatable): blank, "
        "tokens, command-only, shuffled-options, no-mapping (4-choice suites), direct (the "
        "answer itself in the task's words, e.g. 'place the block C in the gray answer zone.': "
        "a control, reported as the semantic gap, never as a score); recorded as each "
        "record's variant and shown beside the original; a goal task runs blank and tokens",
    )
    p.add_argument(
        "--counterfactual",
        action="store_true",
        help="also run each row's counterfactual twin (same scene, a question whose answer is "
        "another candidate) and report consistency, choice sensitivity and stuck rate (not "
        "for goal tasks: no answer to swap)",
    )
    p.add_argument(
        "--features",
        default="",
        metavar="MODE",
        help="store each episode's per-layer policy features for rsb probe: first (the first "
        "query that hands them over), choice (the query whose actions made the choice), "
        "every:K (queries 0, K, 2K, ...); written to OUT/features/ (float16 .npz), never "
        "scored; the policy hands them over as its features attribute or method, an openpi "
        "server as a reply key 'features', a torch-based policy through --feature-modules",
    )
    p.add_argument(
        "--feature-modules",
        default="",
        metavar="NAMES",
        help="comma-separated module names of a torch-based policy (e.g. lerobot:) whose "
        "outputs are its features (forward hooks; the mean over tokens); needs --features",
    )
    p.add_argument(
        "--sealed",
        action="store_true",
        help="a sealed run (implied by --tables; needs --secret-file): policy code only in "
        "the sandbox, episodes in a secret order, an episode's end does not tell its outcome "
        "(a wrong choice runs on as a right one would, a goal task to its step limit), a "
        "policy server's dropped connections are its failures, records signed for rsb "
        "report --secret-file (docs/protocol.md, threat model)",
    )
    p.add_argument(
        "--secret-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="the private secret of a sealed run (for --tables: the one they were drawn from)",
    )
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run file and module policies without the bubblewrap sandbox (refused when sealed)",
    )
    p.add_argument(
        "--sandbox-bind",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a folder the sandboxed policy may read besides its code and Python (e.g. its "
        "checkpoint); repeatable",
    )
    p.add_argument(
        "--sandbox-network",
        action="store_true",
        help="let the sandboxed policy use the network (default: none)",
    )
    p.add_argument(
        "--sandbox-gpu",
        action="store_true",
        help="let the sandboxed policy use the GPU (/dev/nvidia*, /dev/dri; no memory limit)",
    )
    p.add_argument(
        "--sandbox-env",
        action="append",
        default=[],
        metavar="NAME",
        help="pass rsb's environment variable NAME to the sandboxed policy of a sealed run "
        "(it sees only PATH, HOME, TMPDIR, LANG and PYTHONDONTWRITEBYTECODE otherwise); "
        "repeatable",
    )
    p.add_argument(
        "--sandbox-memory",
        type=float,
        default=None,
        metavar="GIB",
        help="the sandboxed policy's address-space limit in GiB (default: 3/4 of this "
        "machine's memory, at most 32; 0: none)",
    )
    p.add_argument(
        "--sandbox-processes",
        type=int,
        default=None,
        metavar="N",
        help="the sandboxed policy's process (and thread) limit (default: 4096, less on a "
        "machine with fewer; 0: none)",
    )
    add_allow_root(p)
    p.set_defaults(func=run)


def _gib(value: float | None) -> int | None:
    """``--sandbox-memory GIB`` in bytes (None: not given).

    Raises:
        EvalError: for a negative or non-finite value.
    """
    if value is None:
        return None
    if not math.isfinite(value) or value < 0:
        raise EvalError(f"--sandbox-memory {value:g}: give GiB >= 0 (0: no limit)")
    return int(value * (1 << 30))


def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print the summary table; 0 when every episode was scored,
    :data:`EXIT_ERRORS` when some ended in errors."""
    # deferred: rsb --help imports this module (the source lookup reads the task language)
    from rsb_mj.evaluation.run_sources import goal_run

    check_names(args.name)
    goal = goal_run(args.tasks, args.suite, split=args.split, episodes=args.episodes,
                    start=args.start, tables=args.tables)  # fmt: skip
    if goal is not None:
        for line in goal.warnings:
            print(line, file=sys.stderr)
    if goal is None or args.out is not None:
        return _run(args, goal, args.out)
    if args.sealed:
        raise EvalError(
            "--sealed: a sealed run's records are signed to be verified after the run; "
            "give --out DIR to keep them (without --out a goal run's records are removed "
            "when it ends)"
        )
    with tempfile.TemporaryDirectory(prefix="rsb-goal-") as tmp:
        return _run(args, goal, Path(tmp))  # without --out: the records live for the run


def _run(args: argparse.Namespace, goal: GoalRun | None, out: Path | None) -> int:
    """:func:`run` once the sources are known: ``goal`` is a goal run's
    (:func:`~rsb_mj.evaluation.run_sources.goal_run`; None for a question run), ``out`` the
    run folder (``--out``, a temporary one for a goal run without it)."""
    from rsb_mj.evaluation.a2a_metrics import A2A_NOTE, a2a_metrics, a2a_table
    from rsb_mj.evaluation.faults import POLICY_FAULT
    from rsb_mj.evaluation.metrics import pair_metrics, summarize
    from rsb_mj.evaluation.run_folder import RunFolder
    from rsb_mj.evaluation.run_sources import question_sources
    from rsb_mj.evaluation.runner import EvalConfig, run_eval
    from rsb_mj.evaluation.tables import (
        SEMANTIC_GAP_NOTE,
        TERMINAL_FAULTS,
        TERMINAL_LEGEND,
        TERMINAL_NOTE,
        ablation_table,
        markdown,
        pair_table,
        plain,
        semantic_gap_table,
        terminal_table,
    )

    if out is None:
        raise EvalError("--out DIR is required: the run directory (resumed if present)")
    folder = RunFolder(out)
    for policy in args.forget:
        dropped = folder.forget(policy)
        print(f"rsb eval: forgot {dropped} records of {policy} in {folder.records_file}")
    if args.forget and not args.policy:
        return 0
    if args.name and len(set(args.policy)) != len(args.policy):
        raise EvalError("--name with a --policy given twice: give each --policy once")
    if args.name and len(args.name) != len(args.policy):
        raise EvalError(
            f"--name given {len(args.name)} times for {len(args.policy)} --policy: give one "
            "--name per --policy, in the same order"
        )
    named = dict(zip(args.policy, args.name or args.policy, strict=True))
    if goal is None:
        sources, episodes = question_sources(args.tasks, args.suite), args.episodes or 10
    else:
        sources, episodes = goal.sources, goal.episodes
    config = EvalConfig(
        suites=sources,
        policies=tuple(named),
        names=tuple(named.values()) if args.name else (),
        episodes=episodes,
        out=out,
        split=args.split,
        start=args.start,
        workers=args.jobs,
        max_steps=args.max_steps,
        videos=tuple(args.video),
        progress=not args.no_progress,
        connect_timeout_s=args.connect_timeout,
        request_timeout_s=args.request_timeout,
        episode_timeout_s=args.episode_timeout,
        instructions=tuple(m for m in dict.fromkeys(args.instruction) if m != "original"),
        counterfactual=args.counterfactual,
        visual_level=args.visual_level,
        a2a_start=args.a2a_start,
        language_level=args.language_level,
        control_hz=args.control_hz,
        ray=args.ray,
        allow_roots=tuple(args.allow_root),
        features=args.features,
        feature_modules=tuple(m.strip() for m in args.feature_modules.split(",") if m.strip()),
        batch=args.batch,
        tables=args.tables,
        sealed=args.sealed,
        secret_file=args.secret_file,
        sandbox=not args.no_sandbox,
        sandbox_binds=tuple(args.sandbox_bind),
        sandbox_network=args.sandbox_network,
        sandbox_gpu=args.sandbox_gpu,
        sandbox_env=tuple(args.sandbox_env),
        sandbox_memory_bytes=_gib(args.sandbox_memory),
        sandbox_processes=args.sandbox_processes,
        assets=str(args.assets or ""),
        resolved=goal.resolved if goal is not None else (),  # not looked up again
    )
    records = run_eval(config)  # the env factory follows the config's levels and rate
    if goal is not None:
        return _goal_report(args, records, goal.skipped)
    metrics = summarize(records)
    print(plain(terminal_table(metrics)))
    print(TERMINAL_LEGEND)
    print(TERMINAL_NOTE)
    if any(m.policy_faults for m in metrics):
        print(TERMINAL_FAULTS)
    ablations = ablation_table(metrics)
    if len(ablations) > 1:
        print("\ninstruction ablations (TSR drop = original - ablated, pp, Newcombe 95%):")
        print(markdown(ablations))
    gaps = semantic_gap_table(metrics)
    if len(gaps) > 1:
        print(f"\nsemantic gap ({SEMANTIC_GAP_NOTE}):")
        print(markdown(gaps))
    a2a = a2a_metrics(records)
    if a2a:
        print("\nAct2Answer, per category (rates in %, Wilson 95% intervals):")
        print(markdown(a2a_table(a2a)))
        print(A2A_NOTE)
    pairs = pair_metrics(records)
    if pairs:
        print("\ncounterfactual pairs (same scene, the answer moved to another candidate):")
        print(markdown(pair_table(pairs)))
    print(f"records: {folder.records_file}; report: {_report_command(args)}")
    if args.features:
        kept = sum(1 for r in records if r.features and r.features.get("file"))
        print(f"features: {kept} of {len(records)} episodes in {folder.features_dir}; "
              f"probe: rsb probe {out}")  # fmt: skip
    faults = [r for r in records if r.termination == POLICY_FAULT]
    if faults:
        print(fault_summary(faults), file=sys.stderr)
    errors = [r for r in records if r.termination == "error"]
    if errors:
        print(error_summary(errors), file=sys.stderr)
        return EXIT_ERRORS
    return 0


def check_names(names: list[str] | None) -> None:
    """Refuse a ``--name`` that is empty, over :data:`MAX_NAME_CHARS` characters, has
    surrounding spaces or a character that is not printable (a newline, a control
    character): before anything runs, so that the report can name its files after it.

    Raises:
        EvalError: naming the ``--name`` and the limit.
    """
    rule = (
        f"a name is 1 to {MAX_NAME_CHARS} printable characters (letters, digits, spaces, "
        "punctuation), without spaces around it"
    )
    for name in names or ():
        shown = repr(name) if len(name) <= MAX_NAME_CHARS else repr(name[:20])[:-1] + "...'"
        if len(name) > MAX_NAME_CHARS:
            raise EvalError(f"--name {shown}: {len(name)} characters; {rule}")
        if not name or not name.isprintable() or name != name.strip():
            raise EvalError(f"--name {shown}: {rule}")


#: The failures a goal run names after its summary (the rest are counted).
SHOWN_FAILURES = 5


def _goal_report(args: argparse.Namespace, records: list, skipped: tuple[str, ...]) -> int:
    """Print a goal run's success per task and suite (:func:`rsb_mj.evaluation.
    metrics.goal_summary`), its first failures, and the suite files not run; the exit
    status (:data:`EXIT_ERRORS` when files were skipped or episodes ended in errors)."""
    from rsb_mj.evaluation.metrics import goal_summary
    from rsb_mj.evaluation.run_folder import RunFolder

    print(goal_summary(records))
    failed = [r for r in records if not r.success and r.failure_reason and not r.is_error]
    for r in failed[:SHOWN_FAILURES]:
        print(f"  {Path(r.suite).name} seed {r.seed} {r.policy}: {r.failure_reason}",
              file=sys.stderr)  # fmt: skip
    if len(failed) > SHOWN_FAILURES:
        more = len(failed) - SHOWN_FAILURES
        print(f"  ... and {more} more failure{'s' if more > 1 else ''} (the records hold "
              "each; rsb report --html browses them)", file=sys.stderr)  # fmt: skip
    if args.out is not None:  # else a temporary folder, removed when the run ends
        print(f"records: {RunFolder(args.out).records_file}; report: {_report_command(args)}")
    errors = [r for r in records if r.is_error]
    if errors:
        print(error_summary(errors), file=sys.stderr)
    if skipped:
        print(
            f"rsb eval: {len(skipped)} suite files were not run (rsb_mj cannot build them, "
            "or their frozen table is short: seeds without a valid layout were skipped):\n"
            + "\n".join(skipped),
            file=sys.stderr,
        )
    return EXIT_ERRORS if skipped or errors else 0


def error_summary(errors: list) -> str:
    """``N episodes ended in errors: ...; rerun the same command to retry them``: the count
    per kind and the first few causes (one line each)."""
    kinds: dict[str, int] = {}
    for r in errors:
        kind = getattr(r, "error_kind", None) or "unknown"
        kinds[kind] = kinds.get(kind, 0) + 1
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    head = f"rsb eval: {len(errors)} episodes ended in errors ({counts}), not scored:"
    return "\n".join([head, *_causes(errors), "rerun the same command to retry them"])


def fault_summary(faults: list) -> str:
    """``N episodes ended in the policy's own faults, scored as failures:`` and the first
    few causes (one line each), so that a policy that raises is seen failing, not just
    scoring low (:mod:`rsb_mj.evaluation.faults`)."""
    head = (
        f"rsb eval: {len(faults)} episodes ended in the policy's own faults, scored as "
        "failures (the faults column):"
    )
    return "\n".join([head, *_causes(faults)])


def _causes(records: list) -> list[str]:
    """The first five distinct causes of ``records``, one line each with where it happened
    first and how often."""
    lines: list[str] = []
    causes: dict[str, list] = {}
    for r in records:
        causes.setdefault(str(r.error), []).append(r)
    for cause, rs in list(causes.items())[:5]:
        first = rs[0]
        where = f"{first.policy} on {first.suite} {first.split} {first.index}"
        more = f" and {len(rs) - 1} more" if len(rs) > 1 else ""
        lines.append(f"  {where}{more}: {cause}")
    if len(causes) > 5:
        lines.append(f"  ... and {len(causes) - 5} other causes (see the records)")
    return lines


def _report_command(args: argparse.Namespace) -> str:
    """The ``rsb report`` command for this run's folder (a sealed run's names its secret:
    its signed records are verified with it)."""
    secret = f" --secret-file {args.secret_file}" if args.secret_file else ""
    return f"rsb report {args.out}{secret}"
