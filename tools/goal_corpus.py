"""Measure goal tasks (LIBERO / VLA-Arena files on the Aloha): tier, build, reset, expert.

Over the task files given (files or folders; default: every file of the shipped goal suites,
``libero`` and ``vla-arena``, :data:`rsb_mj.suites.GOAL_SUITES`):

1. each file's tier; whether the goal scene builds (``RsbEnv`` of the goal task, stand-in
   objects, no cameras; every tier builds: ``rsb_mj.lang.goal_task.BUILDABLE_TIERS``) and
   resets on each of ``--seeds`` seeds (0, 1, ...), each failure named with its message;
2. with ``--expert``: the expert's success on each of those seeds, no seed filtered, its
   failures classified as ``reset``, ``reach``, ``grasp`` or ``placement``
   (:func:`failure_class`);
3. with ``--timing``: construction + first reset of a goal scene beside a question scene
   (``RSB-Math-4``), both without cameras, and a control step that renders the head camera
   (320x240) in each.

Files are measured one after another, or with ``-j N`` on N worker processes (the project's
pool, :func:`rsb_mj.evaluation.pool.run_jobs`), one file per job. This process appends each
file's row to ``OUT/goal_corpus.jsonl`` as the file ends, so a killed run resumes where it
stopped (rows measured with the same seeds and ``--expert`` are kept; a file whose worker died
is named in the tables and measured again next time). At the end ``OUT/goal_corpus.json``
(every row, the summary and the timings) and ``OUT/goal_corpus.md`` (the tables, then each file
not built or not reset on a seed, with why) are written atomically, rows in file order: the
same seeds give the same tables whatever N (only the seconds differ). Results are
"LIBERO/VLA-Arena layouts on Aloha": not comparable with published LIBERO/VLA-Arena numbers.

Usage::

    python tools/goal_corpus.py --out corpus --seeds 5              # build + reset: fast
    python tools/goal_corpus.py --out corpus --seeds 5 --expert --timing -j 2
    python tools/goal_corpus.py tests/data/bddl_suites --out all --seeds 1 --match apple
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROWS_FILE = "goal_corpus.jsonl"
#: Failure classes of the expert, in table order.
CLASSES = ("reset", "reach", "grasp", "placement")


def failure_class(failure: str) -> str:
    """The class of an expert episode's ``failure`` text (its record's ``failure_reason``;
    ``""`` for a success): :func:`rsb_mj.evaluation.failure.goal_failure_class`, where the
    expert running out of steps without the goal holding (``policy`` there), or an
    environment that refused a step, counts as ``placement``."""
    from rsb_mj.evaluation.failure import goal_failure_class

    cls = goal_failure_class(failure, policy="expert")
    return "placement" if cls in ("policy", "error") else cls


def _source(path: Path) -> str:
    return "libero" if "libero" in path.parts else "vla_arena"


def _key(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def measure(path: Path, seeds: int, expert: bool) -> dict:
    """One file's row: tier, build outcome, build seconds and one episode per seed (the
    expert's, or a reset alone)."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.errors import RsbError
    from rsb_mj.lang.goal_task import BUILDABLE_TIERS, goal_task_of
    from rsb_mj.lang.parser import parse_file

    row: dict = {"file": _key(path), "source": _source(path), "seeds": seeds, "expert": expert}
    row["episodes"] = []
    try:
        row["tier"] = goal_task_of(parse_file(path)).tier
    except RsbError as exc:
        row.update(tier="?", build=f"parse: {exc}")
        return row
    if row["tier"] not in BUILDABLE_TIERS:
        row["build"] = "tier"
        return row
    t0 = time.perf_counter()
    try:
        env = GoalEnv(path, cameras=())
    except RsbError as exc:
        row["build"] = f"{type(exc).__name__}: {str(exc).strip()}"
        return row
    row["build"] = "ok"
    row["build_s"] = round(time.perf_counter() - t0, 3)
    try:
        for seed in range(seeds):
            row["episodes"].append(_episode(env, seed, expert))
    finally:
        env.close()
    return row


def _episode(env, seed: int, expert: bool) -> dict:
    """One seed's episode row: the expert's (a step the env refuses ends it as an error
    record: named, not fatal), or a reset alone."""
    from rsb_mj.errors import RsbError
    from rsb_mj.evaluation.rollout import run_goal_episode
    from rsb_mj.policies.spec import make_policy

    if not expert:
        t0 = time.perf_counter()
        try:
            env.reset(seed=seed)
            failure = ""
        except RsbError as exc:
            failure = f"reset: {exc}"
        return {
            "seed": seed,
            "success": None,
            "failure": failure,
            "class": "reset" if failure else "",
            "steps": 0,
            "wall_s": round(time.perf_counter() - t0, 3),
        }
    rec = run_goal_episode(env, make_policy("expert"), seed)
    failure = rec.failure_reason or ""
    return {
        "seed": seed,
        "success": bool(rec.success),
        "failure": failure,
        "class": failure_class(failure) if not rec.success else "",
        "steps": rec.steps,
        "wall_s": rec.wall_s,
    }


def timing(goal_file: Path) -> dict[str, float]:
    """Construction + first reset (no cameras) of a goal scene and of a question scene
    (``RSB-Math-4``), and one control step rendering the head camera at 320x240 in each
    (seconds, the fastest of 3 steps)."""
    from rsb_mj.env.rsb_env import GoalEnv, RsbEnv
    from rsb_mj.suites import get_suite

    def best_step(env, obs) -> float:
        action = obs["state"].copy()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            env.step(action)
            times.append(time.perf_counter() - t0)
        return min(times)

    out: dict[str, float] = {}
    suite = get_suite("RSB-Math-4")
    for key, make in (
        ("goal", lambda cams: GoalEnv(goal_file, cameras=cams)),
        ("question", lambda cams: RsbEnv(suite.path, suite=suite.name, cameras=cams)),
    ):
        t0 = time.perf_counter()
        env = make(())
        env.reset(seed=0)
        out[f"{key}_construct_reset_s"] = round(time.perf_counter() - t0, 3)
        env.close()
        env = make(("head",))
        obs, _ = env.reset(seed=0)
        out[f"{key}_rendered_step_s"] = round(best_step(env, obs), 4)
        env.close()
    out["goal_file"] = _key(goal_file)  # type: ignore[assignment]
    return out


def summarize(rows: list[dict]) -> list[dict]:
    """Per source and tier: files, built, reset on every seed, and with the expert its
    successes / episodes and failures per class."""
    groups: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for r in rows:
        groups[(r["source"], r["tier"])].append(r)
    out = []
    for (source, tier), rs in sorted(groups.items()):
        built = [r for r in rs if r["build"] == "ok"]
        eps = [e for r in built if r.get("expert") for e in r["episodes"]]
        classes = collections.Counter(e["class"] for e in eps if not e["success"])
        out.append(
            {
                "source": source,
                "tier": tier,
                "files": len(rs),
                "built": len(built),
                "reset_every_seed": sum(
                    all(e["class"] != "reset" for e in r["episodes"]) for r in built
                ),
                "successes": sum(bool(e["success"]) for e in eps),
                "episodes": len(eps),
                **{c: classes[c] for c in CLASSES},
            }
        )
    return out


def markdown(rows: list[dict], summary: list[dict], times: dict, expert: bool) -> str:
    """The tables: per source and tier, then each file not built or not reset, then timings."""
    head = "| source | tier | files | build | reset every seed |"
    rule = "|---|---|---|---|---|"
    if expert:
        head += " expert success | failures reset/reach/grasp/placement |"
        rule += "---|---|"
    lines = [head, rule]
    for s in summary:
        line = f"| {s['source']} | {s['tier']} | {s['files']} | {s['built']} | "
        line += f"{s['reset_every_seed']} |"
        if expert:
            n = s["episodes"]
            rate = f"{s['successes']}/{n} ({100 * s['successes'] / n:.0f}%)" if n else "-"
            line += f" {rate} | {'/'.join(str(s[c]) for c in CLASSES)} |"
        lines.append(line)
    for r in rows:
        if r["build"] not in ("ok", "tier"):
            lines.append(f"\n- not built: `{r['file']}`: {r['build']}")
        failed = [e for e in r["episodes"] if e["class"] == "reset"]
        if failed:
            seeds = ", ".join(str(e["seed"]) for e in failed)
            why = failed[-1]["failure"].removeprefix("reset: ").split(".bddl: ", 1)[-1]
            lines.append(
                f"\n- no reset on seed {seeds} of {len(r['episodes'])}: `{r['file']}`: {why}"
            )
    if times:
        lines += [
            "",
            "| scene | construction + reset (s) | rendered step, head 320x240 (s) |",
            "|---|---|---|",
            f"| goal (`{times['goal_file']}`) | {times['goal_construct_reset_s']} | "
            f"{times['goal_rendered_step_s']} |",
            f"| question (RSB-Math-4) | {times['question_construct_reset_s']} | "
            f"{times['question_rendered_step_s']} |",
        ]
    return "\n".join(lines).replace(f"{ROOT}/", "") + "\n"  # paths relative to the checkout


def _files(args: argparse.Namespace) -> list[Path]:
    if args.paths:
        files: list[Path] = []
        for p in (Path(x).resolve() for x in args.paths):
            files += sorted(p.rglob("*.bddl")) if p.is_dir() else [p]
    else:
        from rsb_mj.suites import GOAL_SUITES

        files = [*GOAL_SUITES["libero"].files, *GOAL_SUITES["vla-arena"].files]
    files = [f for f in files if args.match in f.name]
    return files[: args.limit] if args.limit else files


def _done(log: Path, seeds: int, expert: bool) -> dict[str, dict]:
    """Rows of ``log`` measured with the same seeds and expert setting, by file."""
    done: dict[str, dict] = {}
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a kill: measured again
                continue
            if row.get("seeds") == seeds and row.get("expert") == expert:
                done[row["file"]] = row
    return done


def _died(args: argparse.Namespace):
    """The row of a file whose worker process died (named, not kept in the log)."""

    def died(path: Path, cause: str) -> dict:
        row = {"file": _key(path), "source": _source(path), "seeds": args.seeds}
        build = f"worker died: {cause}"
        return row | {"expert": args.expert, "episodes": [], "tier": "?", "build": build}

    return died


def main(argv: list[str] | None = None) -> int:
    """Measure, append each file's row, then write the JSON and markdown; 0 when it ran
    (whatever the rates), 2 for no files or a bad argument."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "paths", nargs="*", help="task files or folders (default: every shipped goal suite file)"
    )
    p.add_argument("--out", type=Path, required=True, help="folder for the rows and tables")
    p.add_argument("--seeds", type=int, default=5, help="seeds per file (default 5)")
    p.add_argument("--expert", action="store_true", help="run the expert on each seed")
    p.add_argument("--match", default="", help="only files whose name contains this")
    p.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    p.add_argument("--timing", action="store_true", help="also time goal vs question scenes")
    p.add_argument(
        "-j", "--jobs", type=int, default=1, help="worker processes, one file each (default 1)"
    )
    args = p.parse_args(argv)
    if args.seeds < 1:
        print(f"goal_corpus: --seeds must be at least 1, got {args.seeds}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"goal_corpus: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return 2
    missing = [x for x in args.paths if not Path(x).exists()]
    if missing:
        print(f"goal_corpus: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    files = _files(args)
    if not files:
        print("goal_corpus: no task files to measure", file=sys.stderr)
        return 2
    from rsb_mj.atomic import atomic_write_text
    from rsb_mj.evaluation.pool import run_jobs

    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / ROWS_FILE
    done = _done(log, args.seeds, args.expert)
    todo = [f for f in files if _key(f) not in done]
    ended = len(files) - len(todo)

    def finish(path: Path, row: dict) -> None:
        """Keep a file's row (appended to the log unless its worker died: measured again
        on the next run) and print its line, in the order files end."""
        nonlocal ended
        ended += 1
        done[row["file"]] = row
        if not row["build"].startswith("worker died"):
            with log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row, sort_keys=True) + "\n")
        eps = row["episodes"]
        if args.expert:
            what = f"expert {sum(bool(e['success']) for e in eps)}/{len(eps)}"
        else:
            what = f"reset {sum(e['class'] != 'reset' for e in eps)}/{len(eps)}"
        print(f"[{ended}/{len(files)}] {row['file']}: {row['tier']}, {row['build']}, {what}",
              file=sys.stderr, flush=True)  # fmt: skip

    run_jobs(
        measure, todo, finish, died=_died(args), workers=args.jobs, args=(args.seeds, args.expert)
    )
    rows = [done[_key(f)] for f in files]  # file order, whatever order they ended in
    built = [f for f, r in zip(files, rows, strict=True) if r["build"] == "ok"]
    times = timing(built[0]) if args.timing and built else {}
    summary = summarize(rows)
    report = {"seeds": args.seeds, "expert": args.expert, "files": len(rows)}
    report.update(summary=summary, timing=times, rows=rows)
    atomic_write_text(args.out / "goal_corpus.json", json.dumps(report, indent=1) + "\n")
    table = markdown(rows, summary, times, args.expert)
    atomic_write_text(args.out / "goal_corpus.md", table)
    print(f"{len(rows)} task files, {args.seeds} seeds each (LIBERO/VLA-Arena layouts on Aloha)")
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
