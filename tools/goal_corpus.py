"""Measure goal tasks on LIBERO / VLA-Arena task files: build, reset and expert success.

For every task file under the given folders (default: the 300 LIBERO and VLA-Arena files in
``tests/data/bddl_suites``): its tier; for tier A0/A1 files, whether the scene builds and
resets over ``--seeds`` seeds, and with ``--expert`` the expert's success over those seeds,
its failures classified (reset, reach, grasp, placement;
:func:`rsb_mj.evaluation.failure.goal_failure_class`). Prints a markdown summary per source and
tier, writes every episode to ``--json`` when given. No seed is filtered.

Usage::

    python tools/goal_corpus.py --seeds 5 --expert --json goal_corpus.json
    python tools/goal_corpus.py --seeds 1 --match apple tests/data/bddl_suites/vla_arena
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "tests" / "data" / "bddl_suites"


def _source_dir(path: Path) -> str:
    parts = path.parts
    return "libero" if "libero" in parts else "vla_arena" if "vla_arena" in parts else "other"


def measure(path: Path, seeds: int, expert: bool) -> dict:
    """One file's tier, build outcome and per-seed episodes."""
    from rsb_mj.env.goal_env import GoalEnv
    from rsb_mj.errors import RsbError
    from rsb_mj.evaluation.rollout import run_goal_episode
    from rsb_mj.lang.goal_task import BUILDABLE_TIERS, goal_task_of
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.policies.spec import make_policy

    out: dict = {"file": str(path), "source": _source_dir(path), "episodes": []}
    try:
        task = goal_task_of(parse_file(path))
    except RsbError as exc:
        out.update(tier="?", build=f"parse: {exc}")
        return out
    out["tier"] = task.tier
    if task.tier not in BUILDABLE_TIERS:
        out["build"] = "tier"
        return out
    t0 = time.perf_counter()
    try:
        env = GoalEnv(task, cameras=())
    except RsbError as exc:
        out["build"] = str(exc).splitlines()[-1].strip()
        return out
    out["build"] = "ok"
    out["build_s"] = round(time.perf_counter() - t0, 3)
    for seed in range(seeds):
        if expert:
            rec = run_goal_episode(env, make_policy("expert"), seed)
            out["episodes"].append(
                {
                    "seed": seed,
                    "success": rec.success,
                    "steps": rec.steps,
                    "failure": rec.failure_reason or "",
                    "failure_class": rec.failure_class,
                }
            )
            continue
        try:
            env.reset(seed=seed)
            out["episodes"].append({"seed": seed, "failure_class": "", "success": None})
        except RsbError as exc:
            out["episodes"].append({"seed": seed, "failure_class": "reset", "failure": str(exc)})
    env.close()
    return out


def summary(rows: list[dict], expert: bool) -> str:
    """Markdown: per source and tier, files, built, reset on every seed, expert success."""
    groups: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for r in rows:
        groups[(r["source"], r["tier"])].append(r)
    head = "| source | tier | files | build | reset every seed |"
    head += " expert success | failures (reset/reach/grasp/placement) |" if expert else ""
    lines = [head, "|---" * (7 if expert else 5) + "|"]
    for (source, tier), rs in sorted(groups.items()):
        built = [r for r in rs if r.get("build") == "ok"]
        reset = [r for r in built if all(e["failure_class"] != "reset" for e in r["episodes"])]
        line = f"| {source} | {tier} | {len(rs)} | {len(built)} | {len(reset)} |"
        if expert:
            eps = [e for r in built for e in r["episodes"]]
            ok = sum(bool(e["success"]) for e in eps)
            classes = collections.Counter(e["failure_class"] for e in eps if not e["success"])
            rate = f"{ok}/{len(eps)} ({100 * ok / len(eps):.0f}%)" if eps else "-"
            fails = "/".join(str(classes[c]) for c in ("reset", "reach", "grasp", "placement"))
            line += f" {rate} | {fails} |"
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; 0 when it ran (whatever the rates)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="*", type=Path, default=[DEFAULT])
    p.add_argument("--seeds", type=int, default=5, help="seeds per file (default 5)")
    p.add_argument("--expert", action="store_true", help="also run the expert on each seed")
    p.add_argument("--match", default="", help="only files whose name contains this")
    p.add_argument("--json", type=Path, help="write every file's row here")
    p.add_argument(
        "--progress", action="store_true", help="print each file's row to stderr as it ends"
    )
    args = p.parse_args(argv)
    files = sorted(f for d in args.folders for f in Path(d).rglob("*.bddl") if args.match in f.name)
    if not files:
        print(f"no task files under {', '.join(map(str, args.folders))}", file=sys.stderr)
        return 2
    rows = []
    for f in files:
        rows.append(measure(f, args.seeds, args.expert))
        if args.progress:  # one JSON line per file as it is measured
            print(json.dumps(rows[-1], sort_keys=True), file=sys.stderr, flush=True)
    print(f"{len(files)} task files, {args.seeds} seeds each")
    print(summary(rows, args.expert))
    for r in rows:
        if r.get("build") not in ("ok", "tier"):
            print(f"not built: {r['file']}: {r['build']}")
    if args.json:
        from rsb_mj.atomic import atomic_write_text

        atomic_write_text(args.json, json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
