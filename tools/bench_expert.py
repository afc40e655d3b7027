"""Benchmark the built-in expert: demonstrations per minute per core, with and without
rendering, and the expert episode's wall time against its simulated time.

Usage::

    MUJOCO_GL=egl python tools/bench_expert.py [--suite RSB-Math-4] [-n 5]

Runs in one process (one core): ``n`` expert episodes without cameras, then ``n`` full
demonstrations (three 320x240 cameras, JPEG + HDF5 written to a temporary folder). The
environment is built before timing starts; its construction time is reported separately.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rsb_mj.datasets.demos import demo_job, write_one
from rsb_mj.env import RsbEnv
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.policies.scripted import ExpertPolicy
from rsb_mj.tables.episode_source import load_episode, load_problem, step_limit, task_path


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="RSB-Math-4")
    parser.add_argument("--split", default="train")
    parser.add_argument("-n", type=int, default=5, help="episodes per measurement")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=240)
    args = parser.parse_args(argv)
    problem = load_problem(args.suite)
    episodes = [load_episode(args.suite, args.split, i) for i in range(args.n)]

    t0 = time.perf_counter()
    env = RsbEnv(task_path(args.suite), suite=args.suite, split=args.split, cameras=())
    build_s = time.perf_counter() - t0
    walls, sims, ok = [], [], 0
    for ep in episodes:
        record = Rollout(env, ExpertPolicy(), ep, problem, max_steps=step_limit(args.suite)).run()
        walls.append(record.wall_s)
        sims.append(record.steps / env.control_hz)
        ok += record.success
    env.close()
    plain_rate = 60.0 * len(walls) / sum(walls)

    cams = ("head", "left_wrist", "right_wrist")
    demo_walls = []
    size = {"cameras": cams, "width": args.width, "height": args.height}
    with tempfile.TemporaryDirectory() as tmp:
        # Warm-up: builds the rendering env of this process (not timed).
        write_one(demo_job(args.suite, args.split, args.n, Path(tmp), **size))
        for i in range(args.n):
            t = time.perf_counter()
            write_one(demo_job(args.suite, args.split, i, Path(tmp), **size))
            demo_walls.append(time.perf_counter() - t)
        size_mb = sum(p.stat().st_size for p in Path(tmp).glob("*.hdf5")) / (args.n + 1) / 1e6
    demo_rate = 60.0 * len(demo_walls) / sum(demo_walls)
    sim_mean = statistics.mean(sims)
    print(f"suite {args.suite}, {args.n} episodes per row, one process (one core)")
    print(f"env construction                       {build_s:6.2f} s")
    print(f"expert, no cameras:  {plain_rate:6.1f} demos/min/core   success {ok}/{len(walls)}")
    print(
        f"  episode wall {statistics.mean(walls):.2f} s vs simulated {sim_mean:.2f} s "
        f"(x{sim_mean / statistics.mean(walls):.1f} real time)"
    )
    print(
        f"expert + 3 cameras {args.width}x{args.height} + JPEG/HDF5: "
        f"{demo_rate:6.1f} demos/min/core"
    )
    print(
        f"  episode wall {statistics.mean(demo_walls):.2f} s vs simulated {sim_mean:.2f} s "
        f"(x{sim_mean / statistics.mean(demo_walls):.2f} real time); {size_mb:.1f} MB per episode"
    )


if __name__ == "__main__":
    main()
