"""Measure goal tasks (LIBERO / VLA-Arena files on the Aloha): tier, build, reset, expert.

Over the task files given (files or folders; default: every file of the shipped goal suites,
``libero`` and ``vla-arena``, :data:`rsb_mj.suites.GOAL_SUITES`):

1. each file's tier; whether the goal scene builds (``RsbEnv`` of the goal task, stand-in
   objects, no cameras; every tier builds: ``rsb_mj.lang.buildable.BUILDABLE_TIERS``) and
   resets on each of ``--seeds`` seeds (0, 1, ...), each failure named with its message;
2. with ``--expert``: the expert's success on each of those seeds, no seed filtered, its
   failures classified as ``reset``, ``reach``, ``grasp``, ``articulation``, ``placement``
   or ``planning`` (:func:`failure_class`), its steps and wall seconds, each articulated
   fixture joint at the episode's end [m or rad] (``joints``) and the scene's layout
   changes (``layout_changes``: a tier-B fixture moved by the placement rule);
3. with ``--timing``: construction + first reset of a goal scene beside a question scene
   (``RSB-Math-4``), both without cameras, and a control step that renders the head camera
   (320x240) in each.

The tables (:func:`markdown`): per source and tier, per source and suite (LIBERO's five,
VLA-Arena's eleven, by the names ``rsb eval --suite`` takes: :func:`rsb_mj.suites.
named_goal_suite`) with the success of each tier (A, B, C) beside, and the expert's median
episode per tier (wall seconds and control steps; all episodes and successes alone), then
each file not built or not reset on a seed, with why. Classes are read from each episode's
``failure`` text when the tables are made, so rows written by an earlier version of this
tool (classes ``reset``, ``reach``, ``grasp``, ``placement``) are tabled with the classes of
now.

Files are measured one after another, or with ``-j N`` on N worker processes (the project's
pool, :func:`rsb_mj.evaluation.pool.run_jobs`), one file per job. This process appends each
file's row to ``OUT/goal_corpus.jsonl`` as the file ends, so a killed run resumes where it
stopped (rows measured with the same seeds and ``--expert`` are kept; a file whose worker died
is named in the tables and measured again next time). At the end ``OUT/goal_corpus.json``
(every row, the summary and the timings) and ``OUT/goal_corpus.md`` (the tables) are written
atomically, rows in file order: the same seeds give the same tables whatever N (only the
seconds differ). ``--report-only`` measures nothing: it writes the tables of the rows
already in ``OUT/goal_corpus.jsonl`` (those of the same ``--seeds`` and ``--expert``),
naming the files that have none yet. Results are "LIBERO/VLA-Arena layouts on Aloha": not
comparable with published LIBERO/VLA-Arena numbers.

Usage::

    python tools/goal_corpus.py --out corpus --seeds 5              # build + reset: fast
    python tools/goal_corpus.py --out corpus --seeds 5 --expert --timing -j 2
    python tools/goal_corpus.py --out corpus --seeds 5 --expert --report-only
    python tools/goal_corpus.py tests/data/bddl_suites --out all --seeds 1 --match apple
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROWS_FILE = "goal_corpus.jsonl"
#: Failure classes of the expert, in table order.
CLASSES = ("reset", "reach", "grasp", "articulation", "placement", "planning")
#: The first word of the expert's phases while it operates a fixture (``open approach``,
#: ``close push``, ``turnon turn``: :func:`rsb_mj.expert.articulation.operate`); a phase of
#: one word is a pick and place's (``close``: the fingers on an object).
ARTICULATION_PHASES = ("open", "close", "turnon", "turnoff")


def _phase(failure: str) -> str:
    """The expert's phase a failure text names (``"expert: <phase>: ..."``, ``"step limit
    N reached in phase <phase>..."``), or ``""``."""
    if failure.startswith("expert: "):
        return failure.removeprefix("expert: ").split(":", 1)[0]
    if failure.startswith("step limit ") and " in phase " in failure:
        return failure.split(" in phase ", 1)[1].split(";", 1)[0]
    return ""


def failure_class(failure: str) -> str:
    """The class of an expert episode's ``failure`` text (its record's ``failure_reason``;
    ``""`` for a success), the first that applies:

    * ``reset``: no valid layout for the seed (``"reset: ..."``);
    * ``articulation``: the expert failed, or ran out of steps, while operating a fixture
      (a phase of :data:`ARTICULATION_PHASES`: no arm reaches the handle, the joint short of
      its threshold after 3 tries, the motion out of reach from the grasp);
    * ``placement``: the expert finished and the goal does not hold (``"goal not held"``);
    * ``planning``: the motion planner found no path, or its goal configuration collides
      (``"...: planning: ..."``, e.g. a pick's or the way home's joint goal in collision
      with a cabinet);
    * else :func:`rsb_mj.evaluation.failure.goal_failure_class`'s ``reach`` or ``grasp``,
      where the expert running out of steps (``policy`` there), or an environment that
      refused a step, counts as ``placement``.

    >>> failure_class("expert: open approach: no arm reaches the handle at [0.05, 0, 0.8]")
    'articulation'
    """
    from rsb_mj.evaluation.failure import goal_failure_class

    if not failure:
        return ""
    if failure.startswith("reset:"):
        return "reset"
    words = _phase(failure).split()
    if len(words) == 2 and words[0] in ARTICULATION_PHASES:
        return "articulation"
    if failure.startswith("goal not held"):
        return "placement"
    if failure.startswith("expert: ") and ": planning: " in failure:
        return "planning"
    cls = goal_failure_class(failure, policy="expert")
    return "placement" if cls in ("policy", "error") else cls


def _source(path: Path | str) -> str:
    return "libero" if "libero" in Path(path).parts else "vla_arena"


def _suite(key: str) -> str:
    """The LIBERO / VLA-Arena suite of a row's file (``libero-goal``), ``"-"`` for none."""
    from rsb_mj.suites import named_goal_suite

    return named_goal_suite(key) or "-"


def _suite_order(group: tuple) -> tuple:
    """A (source, suite) group's place: the sources' own suite order (LIBERO's spatial,
    object, goal, 10, 90; VLA-Arena's safety, robustness, generalization, long horizon),
    files outside them last."""
    from rsb_mj.suites import LIBERO_SUITES, VLA_ARENA_SUITES

    order = [f.replace("_", "-") for f in (*LIBERO_SUITES, *VLA_ARENA_SUITES)]
    source, suite = group
    return (source, order.index(suite) if suite in order else len(order), suite)


def _key(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def measure(path: Path, seeds: int, expert: bool) -> dict:
    """One file's row: tier, build outcome, build seconds, the scene's layout changes (only
    where it has any) and one episode per seed (the expert's, or a reset alone)."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.errors import RsbError
    from rsb_mj.lang.buildable import BUILDABLE_TIERS
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import task_of

    row: dict = {"file": _key(path), "source": _source(path), "seeds": seeds, "expert": expert}
    row["episodes"] = []
    try:
        row["tier"] = task_of(parse_file(path), expect="goal").tier
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
    layout = env.unwrapped.scene.layout
    if layout is not None and layout.layout_changes:
        row["layout_changes"] = list(layout.layout_changes)
    try:
        for seed in range(seeds):
            row["episodes"].append(_episode(env, seed, expert))
    finally:
        env.close()
    return row


def fixture_joints(env) -> dict[str, float]:
    """Each articulated fixture joint of the goal scene (a drawer's slide [m], the
    microwave door's or the stove knob's hinge [rad]) and its position now, by joint name
    (``wooden_cabinet_1/middle_level``); ``{}`` for a scene without one."""
    from rsb_mj.scene.compiler import state_joints

    m, d, task = env.unwrapped.model, env.unwrapped.data, env.unwrapped.task
    ids = sorted({j for fixture in task.fixtures for j in state_joints(m, task, fixture)})
    return {m.joint(j).name: round(float(d.qpos[m.jnt_qposadr[j]]), 4) for j in ids}


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
    out = {
        "seed": seed,
        "success": bool(rec.success),
        "failure": failure,
        "class": failure_class(failure) if not rec.success else "",
        "steps": rec.steps,
        "wall_s": rec.wall_s,
    }
    joints = fixture_joints(env) if rec.steps else {}
    return out | ({"joints": joints} if joints else {})


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


def _classes(eps: list[dict]) -> collections.Counter:
    """Failures per class of ``eps`` (read from each failure text)."""
    return collections.Counter(failure_class(e["failure"]) for e in eps if not e["success"])


def _group(key: tuple, rs: list[dict]) -> dict:
    """One table row's figures over the rows ``rs``: files, built, reset on every seed,
    expert successes / episodes (a file not built counts none), failures per class, and
    successes / episodes per tier letter (A, B, C)."""
    built = [r for r in rs if r["build"] == "ok"]
    eps = [e for r in built if r.get("expert") for e in r["episodes"]]
    classes = _classes(eps)
    by_tier = {}
    for letter in "ABC":
        mine = [e for r in built if r.get("expert") and r["tier"][:1] == letter
                for e in r["episodes"]]  # fmt: skip
        by_tier[letter] = [sum(bool(e["success"]) for e in mine), len(mine)]
    return {
        "group": list(key),
        "files": len(rs),
        "tiers": {t: sum(r["tier"][:1] == t for r in rs) for t in "ABC"},
        "built": len(built),
        "reset_every_seed": sum(
            all(failure_class(e["failure"]) != "reset" for e in r["episodes"]) for r in built
        ),
        "successes": sum(bool(e["success"]) for e in eps),
        "episodes": len(eps),
        "by_tier": by_tier,
        **{c: classes[c] for c in CLASSES},
    }


def summarize(rows: list[dict]) -> dict[str, list[dict]]:
    """The tables' figures: per source and tier (``tier``), per source and LIBERO /
    VLA-Arena suite (``suite``), each source's files in all (``source``), and the expert's
    median episode per tier letter (``time``, :func:`times`)."""
    out: dict[str, list[dict]] = {}
    for name, key in (
        ("tier", lambda r: (r["source"], r["tier"])),
        ("suite", lambda r: (r["source"], _suite(r["file"]))),
        ("source", lambda r: (r["source"],)),
    ):
        groups: dict[tuple, list[dict]] = collections.defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        keys = sorted(groups, key=_suite_order if name == "suite" else None)
        out[name] = [_group(k, groups[k]) for k in keys]
    out["time"] = times(rows)
    return out


def _median(values: list[float]) -> float | None:
    return round(float(statistics.median(values)), 2) if values else None


def times(rows: list[dict]) -> list[dict]:
    """The expert's median episode per source (and both) and tier letter (A, B, C): wall
    seconds and control steps over every episode that ran (a seed with no layout has none)
    and over the successes alone."""
    groups: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for r in rows:
        if r["build"] != "ok" or not r.get("expert"):
            continue
        ran = [e for e in r["episodes"] if e["steps"]]
        for source in (r["source"], "all"):
            groups[(source, r["tier"][:1])] += ran
    out = []
    for (source, tier), eps in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        won = [e for e in eps if e["success"]]
        out.append(
            {
                "source": source,
                "tier": tier,
                "episodes": len(eps),
                "median_s": _median([e["wall_s"] for e in eps]),
                "median_steps": _median([e["steps"] for e in eps]),
                "successes": len(won),
                "success_median_s": _median([e["wall_s"] for e in won]),
                "success_median_steps": _median([e["steps"] for e in won]),
            }
        )
    return out


def _rate(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "-"


def _failures(s: dict) -> str:
    """``reach 5, grasp 2`` (the classes with failures, most first), or ``-``."""
    found = sorted(((s[c], c) for c in CLASSES if s[c]), key=lambda x: -x[0])
    return ", ".join(f"{c} {n}" for n, c in found) or "-"


def markdown(rows: list[dict], summary: dict, times_: dict, expert: bool) -> str:
    """The tables: per source and tier, per source and suite, the expert's median episode
    per tier, then each file not built or not reset, then timings."""
    head = "| source | tier | files | build | reset every seed |"
    rule = "|---|---|---|---|---|"
    if expert:
        head += " expert success | failures " + "/".join(CLASSES) + " |"
        rule += "---|---|"
    lines = [head, rule]
    for s in summary["tier"]:
        source, tier = s["group"]
        line = f"| {source} | {tier} | {s['files']} | {s['built']} | {s['reset_every_seed']} |"
        if expert:
            line += f" {_rate(s['successes'], s['episodes'])} | "
            line += "/".join(str(s[c]) for c in CLASSES) + " |"
        lines.append(line)
    lines += ["", "| source | suite | files (A/B/C) | build | reset every seed |"]
    lines[-1] += " expert success | tier A | tier B | tier C | failures |" if expert else ""
    lines.append("|---" * (10 if expert else 5) + "|")
    for s in [*summary["suite"], *summary["source"]]:
        source, suite = (*s["group"], "all")[:2]
        tiers = "/".join(str(s["tiers"][t]) for t in "ABC")
        line = f"| {source} | {suite} | {s['files']} ({tiers}) | {s['built']} | "
        line += f"{s['reset_every_seed']} |"
        if expert:
            by = [_rate(*s["by_tier"][t]) for t in "ABC"]
            line += f" {_rate(s['successes'], s['episodes'])} | {' | '.join(by)} | "
            line += f"{_failures(s)} |"
        lines.append(line)
    if expert and summary["time"]:
        lines += [
            "",
            "| source | tier | episodes | median s | median steps | successes | "
            "median s (successes) | median steps (successes) |",
            "|---" * 8 + "|",
        ]
        for t in summary["time"]:
            cells = [t["episodes"], t["median_s"], t["median_steps"], t["successes"],
                     t["success_median_s"], t["success_median_steps"]]  # fmt: skip
            cells = ["-" if c is None else f"{c:g}" for c in cells]
            lines.append(f"| {t['source']} | {t['tier']} | " + " | ".join(cells) + " |")
    for r in rows:
        if r["build"] not in ("ok", "tier"):
            lines.append(f"\n- not built: `{r['file']}`: {r['build']}")
        failed = [e for e in r["episodes"] if failure_class(e["failure"]) == "reset"]
        if failed:
            seeds = ", ".join(str(e["seed"]) for e in failed)
            why = failed[-1]["failure"].removeprefix("reset: ").split(".bddl: ", 1)[-1]
            lines.append(
                f"\n- no reset on seed {seeds} of {len(r['episodes'])}: `{r['file']}`: {why}"
            )
    if times_:
        lines += [
            "",
            "| scene | construction + reset (s) | rendered step, head 320x240 (s) |",
            "|---|---|---|",
            f"| goal (`{times_['goal_file']}`) | {times_['goal_construct_reset_s']} | "
            f"{times_['goal_rendered_step_s']} |",
            f"| question (RSB-Math-4) | {times_['question_construct_reset_s']} | "
            f"{times_['question_rendered_step_s']} |",
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
    """Rows of ``log`` measured with the same seeds and expert setting, by file (the last
    row of a file wins)."""
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


def _write(args: argparse.Namespace, rows: list[dict], times_: dict, missing: list[str]) -> None:
    """Write ``goal_corpus.json`` and ``goal_corpus.md`` and print the tables."""
    from rsb_mj.atomic import atomic_write_text

    summary = summarize(rows)
    report = {"seeds": args.seeds, "expert": args.expert, "files": len(rows)}
    report.update(summary=summary, timing=times_, not_measured=missing, rows=rows)
    atomic_write_text(args.out / "goal_corpus.json", json.dumps(report, indent=1) + "\n")
    table = markdown(rows, summary, times_, args.expert)
    if missing:
        table += f"\n- not measured yet: {len(missing)} files (first: `{missing[0]}`)\n"
    atomic_write_text(args.out / "goal_corpus.md", table)
    print(f"{len(rows)} task files, {args.seeds} seeds each (LIBERO/VLA-Arena layouts on Aloha)")
    print(table, end="")


def main(argv: list[str] | None = None) -> int:
    """Measure, append each file's row, then write the JSON and markdown; 0 when it ran
    (whatever the rates), 2 for no files, no rows to report or a bad argument."""
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
        "--report-only",
        action="store_true",
        help="measure nothing: the tables of the rows already in OUT/goal_corpus.jsonl",
    )
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
    log = args.out / ROWS_FILE
    done = _done(log, args.seeds, args.expert)
    if args.report_only:
        if not done:
            what = f"--seeds {args.seeds}" + (" --expert" if args.expert else "")
            print(f"goal_corpus: no rows measured with {what} in {log}", file=sys.stderr)
            return 2
        rows = [done[_key(f)] for f in files if _key(f) in done]
        _write(args, rows, {}, [_key(f) for f in files if _key(f) not in done])
        return 0
    from rsb_mj.evaluation.pool import run_jobs

    args.out.mkdir(parents=True, exist_ok=True)
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
    _write(args, rows, timing(built[0]) if args.timing and built else {}, [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
