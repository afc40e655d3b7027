"""Scaling of ``rsb eval --ray`` from one to two workers on this machine.

Runs the same episodes (expert on RSB-Math-4 eval rows, no cameras) in this process, then
on a local Ray cluster of 1 and of 2 CPUs (started on 127.0.0.1, as ``--ray`` does), and
prints episodes per second and the scaling efficiency ``(rate with 2) / (2 x rate with 1)``.
Cluster start-up is excluded (reported apart); the first episodes of each worker include
building its environment, as in a real run. On a shared machine the figures are noisy:
run it when the machine is quiet, and more than once.

Usage::

    PYTHONPATH=$PWD python tools/bench_ray.py [--episodes 24] [--suite RSB-Math-4]
"""

from __future__ import annotations

import argparse
import os
import time

from rsb_mj.evaluation.pool.ray_cluster import LOCAL_ENV


def main(argv: list[str] | None = None) -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--suite", default="RSB-Math-4")
    parser.add_argument("--policy", default="expert")
    args = parser.parse_args(argv)
    for name, value in LOCAL_ENV.items():
        os.environ.setdefault(name, value)

    from rsb_mj.evaluation.jobs import Job
    from rsb_mj.evaluation.pool.ray_cluster import RayCluster
    from rsb_mj.evaluation.worker import close_all, run_job
    from rsb_mj.tables.episode_source import step_limit

    limit = step_limit(args.suite)
    jobs = [Job(args.suite, "eval", i, args.policy, limit) for i in range(args.episodes)]
    t0 = time.perf_counter()
    serial = [run_job(job) for job in jobs]
    serial_s = time.perf_counter() - t0
    close_all()
    print(f"{len(jobs)} episodes of {args.policy} on {args.suite}, {os.cpu_count()} CPUs")
    print(f"in this process: {serial_s:.1f} s ({len(jobs) / serial_s:.2f} episodes/s)")
    rates = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        with RayCluster("", workers) as cluster:
            start_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            records = {job.key: rec for job, rec, _ in cluster.map(run_job, jobs, None)}
            run_s = time.perf_counter() - t1
        same = all(records[j.key].success == r.success for j, r in zip(jobs, serial, strict=True))
        rates[workers] = len(jobs) / run_s
        print(
            f"ray, {workers} worker(s): {run_s:.1f} s ({rates[workers]:.2f} episodes/s; "
            f"cluster start {start_s:.1f} s; same outcomes as in-process: {same})"
        )
    print(f"scaling efficiency 1 -> 2 workers: {rates[2] / (2 * rates[1]):.0%}")


if __name__ == "__main__":
    main()
