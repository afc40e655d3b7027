"""The one pool of rsb eval and rsb demos: in this process or on spawned workers, a worker
that dies hands its job on as ``died`` and the run goes on, other failures stop it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.pool import WORKER_DIED, backend_for, map_jobs, run_jobs
from rsb_mj.evaluation.pool.in_process import InProcess
from rsb_mj.evaluation.pool.processes import SpawnedProcesses
from rsb_mj.evaluation.pool.ray_cluster import RayTasks


def square_and_pid(job: int) -> tuple[int, int]:
    """Module-level (spawned workers import it): the job's square and the worker's pid."""
    return job * job, os.getpid()


def dies_on_two(job: int) -> tuple[int, int]:
    """Ends its process without a word on job 2 (a native crash, an OOM kill)."""
    if job == 2:
        os._exit(1)
    return square_and_pid(job)


def always_dies(job: int) -> tuple[int, int]:
    os._exit(1)


def raises_on_one(job: int) -> tuple[int, int]:
    if job == 1:
        raise ValueError("job 1 is bad")
    return square_and_pid(job)


def _run(fn, todo, workers):
    seen: list[tuple[int, object]] = []
    run_jobs(
        fn,
        todo,
        lambda job, result: seen.append((job, result)),
        died=lambda job, cause: cause,
        workers=workers,
    )
    return seen


def test_one_worker_runs_in_this_process_in_order():
    me = os.getpid()
    assert _run(square_and_pid, [3, 1, 2], workers=1) == [(3, (9, me)), (1, (1, me)), (2, (4, me))]


def test_arguments_follow_the_job():
    seen = []
    run_jobs(divmod, [7, 9], lambda j, r: seen.append(r), died=lambda j, c: c, args=(4,))
    assert seen == [(1, 3), (2, 1)]


def test_workers_are_other_processes_and_every_job_finishes_once():
    seen = _run(square_and_pid, list(range(5)), workers=2)
    assert sorted((job, result[0]) for job, result in seen) == [(i, i * i) for i in range(5)]
    assert os.getpid() not in {result[1] for _, result in seen}


def test_a_dying_worker_hands_its_job_on_and_a_fresh_pool_runs_the_rest():
    seen = dict(_run(dies_on_two, list(range(6)), workers=2))
    assert sorted(seen) == list(range(6))
    assert seen[2] == WORKER_DIED
    # the job in flight beside it may have died with the pool (which one is a race)
    died = {job for job, result in seen.items() if result == WORKER_DIED}
    assert 2 in died and len(died) <= 2
    assert all(seen[j][0] == j * j for j in range(6) if j not in died)


def test_pools_that_keep_dying_stop_the_run():
    seen = []
    with pytest.raises(InfraError, match=r"^worker processes died 3 times in a row before"):
        run_jobs(
            always_dies,
            list(range(8)),
            lambda job, result: seen.append((job, result)),
            died=lambda job, cause: cause,
            workers=2,
        )
    # three pools of (usually) two jobs each, every job handed on as died, none run twice
    assert {result for _, result in seen} == {WORKER_DIED}
    assert sorted(job for job, _ in seen) == list(range(len(seen)))
    assert 3 <= len(seen) <= 6


@pytest.mark.parametrize("workers", [1, 2])
def test_any_other_failure_of_a_job_stops_the_run(workers):
    with pytest.raises(ValueError, match=r"^job 1 is bad$"):
        _run(raises_on_one, [0, 1, 2, 3], workers=workers)


def test_the_back_end_follows_workers_ray_and_the_number_of_jobs():
    assert type(backend_for(1, None, 10)) is InProcess
    assert type(backend_for(4, None, 1)) is InProcess  # one job: no process to start
    spawned = backend_for(3, None, 10)
    assert type(spawned) is SpawnedProcesses and spawned.workers == 3
    on_ray = backend_for(2, "", 10)
    assert type(on_ray) is RayTasks and (on_ray.address, on_ray.workers) == ("", 2)


def test_the_pool_loads_without_the_evaluation_harness():
    """Every spawned worker imports the pool (its initializer) before its first job."""
    code = (
        "import sys, rsb_mj.evaluation.pool.processes; "
        "print(sorted(m for m in ('numpy', 'mujoco', 'ray', 'rsb_mj.evaluation.runner', "
        "'rsb_mj.evaluation.worker') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout == "[]\n"


def test_map_jobs_returns_results_in_job_order_on_spawned_workers():
    results = map_jobs(square_and_pid, [3, 1, 2, 5], workers=2)
    assert [r[0] for r in results] == [9, 1, 4, 25]
    assert os.getpid() not in {r[1] for r in results}
    assert [r[0] for r in map_jobs(square_and_pid, [4, 2])] == [16, 4]


def test_map_jobs_stops_when_a_worker_dies():
    with pytest.raises(InfraError, match=r"^job 2 of 3: InfraError: the worker process"):
        map_jobs(dies_on_two, [1, 2, 3], workers=2)
