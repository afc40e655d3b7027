"""Measure the goal expert on tier-B files (drawers, the microwave, the stove operated or filled).

Usage::

    python tools/tier_b_expert.py tests/data/bddl_suites --seeds 5 --out runs/tier_b.jsonl
    python tools/tier_b_expert.py FILE.bddl --seeds 1

Every tier-B (B1, B2) file under the given paths runs with the goal expert (`GoalEnv`, no
cameras, the stand-ins) for seeds 0..N-1, seed-major (every file's seed 0 first), no seed
filtered; one JSON line per episode is appended to ``--out``: the file, the seed, success,
steps, wall time [s], the expert's failure (``phase: reason``) and a class (``grasp``,
``reach``, ``articulation``, ``placement``, ``planning``, ``reset``), the fixture joints at
the end [m or rad] and the scene's layout changes. A summary per source closes the run.

`rsb eval` refuses tier B until RSB530 is lifted for it (issue 44 item 6); this tool runs the
environment and the expert past that gate (`rsb_mj.lang.linter.check_runnable` is replaced by
the parser for the run), which is what it measures.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

#: Failure substrings -> class, first match wins (the expert's ``phase: reason``).
CLASSES = (
    ("reset", "reset"),
    ("no arm reaches the handle", "articulation"),
    ("after 3 tries", "articulation"),
    ("out of reach from the grasp", "articulation"),
    ("not held", "grasp"),
    ("grasp", "grasp"),
    ("RRT", "planning"),
    ("in collision", "planning"),
    ("reach", "reach"),
    ("IK", "reach"),
)


def classify(ok: bool, failure: str) -> str:
    """The class of an episode's outcome: ``ok``, or the failure's (``placement`` when the
    expert finished and the goal does not hold)."""
    if ok:
        return "ok"
    for key, name in CLASSES:
        if key in failure:
            return name
    return "placement"


def episode(path: Path, seed: int) -> dict:
    """Run the expert on ``path`` with ``seed`` until success, the step limit or its end."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.expert.pick_place import PickPlaceExpert

    start = time.perf_counter()
    try:
        env = GoalEnv(path, cameras=())
        env.reset(seed=seed)
    except Exception as exc:  # a layout that does not settle, named by the reset
        return {"ok": False, "failure": f"reset: {exc}"[:300], "steps": 0}
    expert = PickPlaceExpert(env)
    ok, steps = False, 0
    m, d = env.model, env.data
    while steps < env.max_steps:
        action = expert.act(None)
        _, _, ok, truncated, _ = env.step(action)
        steps += 1
        if ok or truncated:
            break
        if expert.done:  # a few steps for the world to settle after the last motion
            for _ in range(10):
                _, _, ok, _, _ = env.step(action)
                steps += 1
                if ok:
                    break
            break
    joints = {
        m.joint(j).name: round(float(d.qpos[m.jnt_qposadr[j]]), 4)
        for j in range(m.njnt)
        if m.joint(j).name.split("/")[-1]
        in ("top_level", "middle_level", "bottom_level", "microjoint", "button")
    }
    env.close()
    return {
        "ok": bool(ok),
        "steps": steps,
        "wall_s": round(time.perf_counter() - start, 2),
        "failure": (expert.failure or "")[:300],
        "joints": joints,
        "layout_changes": list(env.scene.layout.layout_changes),
    }


def tier_b_files(paths: list[str]) -> list[Path]:
    """The tier B1/B2 files under ``paths`` (files or folders), sorted."""
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import tier_of

    found = []
    for p in map(Path, paths):
        for f in sorted(p.rglob("*.bddl")) if p.is_dir() else [p]:
            try:
                tier = tier_of(parse_file(f))
            except Exception:  # not a goal task file
                continue
            if tier in ("B1", "B2"):
                found.append(f)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="task files or folders")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default 5)")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines appended here")
    args = parser.parse_args(argv)
    from rsb_mj.lang import linter
    from rsb_mj.lang.ast import Problem
    from rsb_mj.lang.parser import parse_file

    linter.check_runnable = lambda t: t if isinstance(t, Problem) else parse_file(t)
    files = tier_b_files(args.paths)
    tally: Counter = Counter()
    for seed in range(args.seeds):
        for f in files:
            row = {"file": str(f), "seed": seed, **episode(f, seed)}
            row["class"] = classify(row["ok"], row["failure"])
            source = "libero" if "libero" in f.parts else "vla_arena"
            tally[(source, row["class"])] += 1
            line = json.dumps(row)
            print(line, flush=True)
            if args.out is not None:
                with args.out.open("a") as out:
                    out.write(line + "\n")
    for source in ("libero", "vla_arena"):
        n = sum(v for (s, _), v in tally.items() if s == source)
        if n:
            ok = tally[(source, "ok")]
            print(f"{source}: {ok}/{n} ({100 * ok / n:.1f}%)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
