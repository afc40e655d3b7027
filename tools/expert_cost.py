"""The goal expert's success and safety cost per VLA-Arena safety suite.

Usage::

    MUJOCO_GL=egl python tools/expert_cost.py [--suite vla-arena-l0] [--rows 5] [--by-file]
    MUJOCO_GL=egl python tools/expert_cost.py FILE.bddl ... --rows 2 [--json OUT.json]

Runs the built-in goal expert (:class:`rsb_mj.expert.pick_place.PickPlaceExpert`, as ``rsb eval
--policy expert`` does) on every file of a shipped goal suite whose ``:cost`` rsb evaluates,
on the first ``--rows`` eval rows of its frozen table (rows 0-4 of ``vla-arena-l0`` are its
``rsb eval --suite vla-arena-l0`` episodes), or on files given by path, on seeds 0 ..
``--rows`` - 1 (as ``rsb eval FILE.bddl``). It prints, per safety suite (the file's VLA-Arena
task suite and level, e.g. ``safety_hazard_avoidance/level_0``), the expert's successes, its
mean cost per episode (the summed step terms plus the end terms, as the records' ``cost``),
how many episodes cost nothing, and how many already cost at their first step (a
``:cost`` that holds where the layout puts the objects, e.g. the mover within a
``CheckDistance`` of the hazard: no policy gets 0 there); ``--by-file`` adds a row per
file, ``--json`` writes every episode (file, row, seed, success, cost, steps, the expert's
failure and warnings).
One process, one core; about 2-5 s per episode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from rsb_mj.atomic import atomic_write_text
from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.errors import RsbError
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.lang import load_task
from rsb_mj.suites import GOAL_MAX_STEPS, GOAL_SUITES
from rsb_mj.tables.layouts import file_rows


class Episode(NamedTuple):
    """One expert episode of a file with a ``:cost``."""

    group: str
    file: str
    row: int
    seed: int
    success: bool
    cost: float
    at_reset: bool
    steps: int
    failure: str | None
    warnings: list[str]


def group_of(path: Path) -> str:
    """The safety suite of a task file: its VLA-Arena task suite and level folders
    (``safety_hazard_avoidance/level_0``), else its parent folder's name."""
    parts = path.resolve().parts
    if "vla_arena" in parts:
        i = parts.index("vla_arena")
        return "/".join(parts[i + 1 : -1])
    return path.parent.name


def has_cost(path: Path) -> bool:
    """Whether the file has a ``:cost`` block (rsb then evaluates it or warns why not)."""
    return bool(load_task(path).cost_terms)


def episodes(path: Path, rows: int, suite: str | None) -> Iterator[Episode]:
    """The expert's episodes on ``path``: its first ``rows`` frozen rows of ``suite``, or,
    without a suite, the seeds 0 .. ``rows`` - 1."""
    env = GoalEnv(path, cameras=(), max_steps=GOAL_MAX_STEPS)
    try:
        if env._cost is None:  # a :cost rsb cannot evaluate (the env warned why)
            return
        starts: list[tuple[int, dict]] = []
        if suite is not None:
            for k, row in enumerate(file_rows(suite, "eval", path)[:rows]):
                starts.append((k, {"options": {"episode": row}}))
        else:
            starts = [(k, {"seed": k}) for k in range(rows)]
        for k, kwargs in starts:
            obs, _ = env.reset(**kwargs)
            expert = PickPlaceExpert(env)
            cost, steps, done, info, first = 0.0, 0, False, {}, 0.0
            while not done:
                obs, _, terminated, truncated, info = env.step(expert.act(obs))
                cost += float(info["cost"])
                first = cost if steps == 0 else first
                steps += 1
                done = terminated or truncated
            cost += env.end_cost()
            yield Episode(
                group=group_of(path),
                file=str(path),
                row=k,
                seed=int(env.seed),
                success=bool(info.get("is_success", False)),
                cost=cost,
                at_reset=first > 0,
                steps=steps,
                failure=expert.failure,
                warnings=list(expert.warnings),
            )
    finally:
        env.close()


def table(eps: list[Episode], key: str) -> str:
    """A markdown table of ``eps`` grouped by ``key`` (``group`` or ``file``)."""
    lines = [
        f"| {key} | episodes | success | mean cost | cost 0 | cost at the first step |",
        "|---|---|---|---|---|---|",
    ]
    names: dict[str, list[Episode]] = {}
    for e in eps:
        names.setdefault(getattr(e, key), []).append(e)
    for name, group in names.items():
        ok = sum(e.success for e in group)
        zero = sum(e.cost == 0 for e in group)
        first = sum(e.at_reset for e in group)
        mean = statistics.mean(e.cost for e in group)
        shown = Path(name).name if key == "file" else name
        lines.append(
            f"| {shown} | {len(group)} | {ok}/{len(group)} | {mean:.1f} | {zero} | {first} |"
        )
    if eps:
        ok = sum(e.success for e in eps)
        zero = sum(e.cost == 0 for e in eps)
        first = sum(e.at_reset for e in eps)
        mean = statistics.mean(e.cost for e in eps)
        lines.append(f"| all | {len(eps)} | {ok}/{len(eps)} | {mean:.1f} | {zero} | {first} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure and print the tables; 0 on success, 2 for bad input."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="task files (instead of --suite)")
    parser.add_argument(
        "--suite",
        default="vla-arena-l0",
        help=f"a shipped goal suite (valid choices: {', '.join(GOAL_SUITES)})",
    )
    parser.add_argument("--rows", type=int, default=5, help="rows (or seeds) per file")
    parser.add_argument("--by-file", action="store_true", help="a row per file too")
    parser.add_argument("--json", type=Path, help="write every episode to this file")
    args = parser.parse_args(argv)
    if args.rows < 1:
        print("expert_cost: error: --rows must be at least 1", file=sys.stderr)
        return 2
    suite = None
    if args.files:
        files = args.files
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            print(f"expert_cost: error: no such task file: {missing[0]}", file=sys.stderr)
            return 2
    else:
        goal = GOAL_SUITES.get(args.suite.lower())
        if goal is None:
            print(
                f"expert_cost: error: unknown goal suite {args.suite!r}; valid choices: "
                + ", ".join(GOAL_SUITES),
                file=sys.stderr,
            )
            return 2
        suite, files = goal.table_suite, goal.files
    t0 = time.perf_counter()
    eps: list[Episode] = []
    try:
        for path in files:
            if has_cost(path):
                eps.extend(episodes(path, args.rows, suite))
    except RsbError as exc:
        print(f"expert_cost: error: {exc}", file=sys.stderr)
        return 2
    where = f"suite {args.suite}, eval rows 0-{args.rows - 1}" if suite else "seeds"
    if not suite:
        where += f" 0-{args.rows - 1}"
    print(f"goal expert on the files with a :cost ({where}; {time.perf_counter() - t0:.0f} s)")
    print(table(eps, "group"))
    if args.by_file:
        print()
        print(table(eps, "file"))
    if args.json is not None:
        atomic_write_text(args.json, json.dumps([e._asdict() for e in eps], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
