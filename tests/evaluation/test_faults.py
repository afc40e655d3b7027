"""Errors are not results: failing user policies, dying workers, resume retries errors.

In-process and pooled runs against the signals-only fake environment (:mod:`fakes`) and
the misbehaving policies of :mod:`user_policies`.
"""

from __future__ import annotations

import dataclasses

import pytest

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.pool import WORKER_DIED, processes
from rsb_mj.evaluation.records import RECORDS_FILE, read_records
from rsb_mj.evaluation.runner import EvalConfig, run_eval

from .fakes import fake_env_factory

M = "evaluation.user_policies"


def _config(tmp_path, policies, episodes=2, workers=1, prefix="", **kw):
    return EvalConfig(
        suites=("RSB-Math-4",),
        policies=tuple(f"{prefix}{M}:{p}" for p in policies),
        episodes=episodes,
        out=tmp_path / "run",
        workers=workers,
        max_steps=3,
        progress=False,
        sandbox_binds=(tmp_path,),  # the policy process's sandbox reads RSB_TEST_FLAG's file
        **kw,
    )


FAILURES = {
    "raises_in_act": "act() raised ValueError: no action today",
    "raises_in_reset": "reset() raised KeyError: 'weights'",
    "returns_string": "act() raised ValueError: could not convert string to float: 'left'",
    "ragged": "act() raised ValueError: setting an array element with a sequence. The "
    "requested array has an inhomogeneous shape after 1 dimensions. The detected shape was "
    "(2,) + inhomogeneous part.",
    "system_exit": "act() raised SystemExit: 4",
    "factory_raises": "building it failed: RuntimeError: weights not found",
    "factory_exits": "building it failed: SystemExit: 1",
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_a_failing_user_policy_gives_policy_error_records_and_the_run_goes_on(tmp_path, name):
    records = run_eval(_config(tmp_path, [name, "ok"]), env_factory=fake_env_factory)
    bad = [
        (r.index, r.termination, r.error_kind, r.error) for r in records if r.policy.endswith(name)
    ]
    message = f"PolicyError: policy {M}:{name}: {FAILURES[name]}"
    assert bad == [(0, "error", "policy", message), (1, "error", "policy", message)]
    good = [r for r in records if r.policy == f"{M}:ok"]
    assert [(r.index, r.termination, r.steps) for r in good] == [
        (0, "step_limit", 3),
        (1, "step_limit", 3),
    ]


def test_system_exit_in_a_pool_worker_is_an_error_record_not_an_exit(tmp_path):
    cfg = _config(tmp_path, ["system_exit", "factory_exits", "ok"], workers=2)
    records = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.policy.split(":")[1], r.index, r.error_kind) for r in records] == [
        ("system_exit", 0, "policy"),
        ("factory_exits", 0, "policy"),
        ("ok", 0, None),
        ("system_exit", 1, "policy"),
        ("factory_exits", 1, "policy"),
        ("ok", 1, None),
    ]


def test_error_records_are_retried_on_resume_and_then_superseded(tmp_path, monkeypatch):
    flag = tmp_path / "fail"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    cfg = _config(tmp_path, ["fail_if_flagged"], episodes=3)
    first = run_eval(cfg, env_factory=fake_env_factory)
    assert {(r.termination, r.error_kind) for r in first} == {("error", "policy")}
    assert first[0].error == (
        f"PolicyError: policy {M}:fail_if_flagged: act() raised ConnectionError: lost the GPU"
    )
    again = run_eval(cfg, env_factory=fake_env_factory)  # still failing: retried, still errors
    assert [r.termination for r in again] == ["error"] * 3
    flag.unlink()
    final = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.index, r.termination) for r in final] == [(i, "step_limit") for i in range(3)]
    path = cfg.out / RECORDS_FILE
    assert path.read_text().count("\n") == 9  # 3 errors, 3 retried errors, 3 scored
    assert [(r.index, r.termination) for r in read_records(path)] == [
        (i, "step_limit") for i in range(3)
    ]
    assert run_eval(cfg, env_factory=fake_env_factory) == final  # nothing left to run
    assert path.read_text().count("\n") == 9


def test_a_worker_that_dies_gives_infra_error_records_and_the_run_goes_on(tmp_path, monkeypatch):
    flag = tmp_path / "crash"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    pools = []

    class CountedPool(processes.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(processes, "ProcessPoolExecutor", CountedPool)
    # in rsb's process (inprocess:), the policy's os._exit ends the worker itself
    cfg = _config(
        tmp_path, ["crash_once_if_flagged", "ok"], episodes=6, workers=2, prefix="inprocess:"
    )
    records = run_eval(cfg, env_factory=fake_env_factory)
    # the crash breaks the first pool: the episode it ran (and the other one in flight, if
    # any) become infra errors, and the rest run on a second pool
    assert not flag.exists() and len(pools) == 2
    # which of the two first episodes (one per worker) meets the flag first is a race
    errors = [r for r in records if r.termination == "error"]
    assert 1 <= len(errors) <= 2 and {r.index for r in errors} <= {0, 1}
    assert {(r.error_kind, r.error) for r in errors} == {("infra", WORKER_DIED)}
    assert any(r.policy.endswith(":crash_once_if_flagged") for r in errors)
    assert all(r.termination == "step_limit" for r in records if r not in errors)
    path = cfg.out / RECORDS_FILE
    assert path.read_text().count("\n") == 12
    resumed = run_eval(dataclasses.replace(cfg, workers=1), env_factory=fake_env_factory)
    assert [r.termination for r in resumed] == ["step_limit"] * 12
    assert path.read_text().count("\n") == 12 + len(errors)
    assert len(read_records(path)) == 12


@pytest.mark.slow
def test_workers_that_keep_dying_before_any_episode_stop_the_run(tmp_path, monkeypatch):
    flag = tmp_path / "crash"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    cfg = _config(tmp_path, ["crash_if_flagged"], episodes=8, workers=2, prefix="inprocess:")
    with pytest.raises(InfraError, match=r"^worker processes died 3 times in a row before"):
        run_eval(cfg, env_factory=fake_env_factory)
    records = read_records(cfg.out / RECORDS_FILE)
    assert sorted((r.index, r.error) for r in records) == [(i, WORKER_DIED) for i in range(6)]


def test_an_episode_over_its_wall_clock_limit_is_an_infra_error(tmp_path):
    cfg = _config(tmp_path, ["hangs"], episodes=1, episode_timeout_s=0.5)
    (record,) = run_eval(cfg, env_factory=fake_env_factory)
    assert (record.termination, record.error_kind, record.error) == (
        "error",
        "infra",
        "InfraError: episode 0 exceeded its wall-clock limit of 0.5 s (--episode-timeout)",
    )


def test_server_timeouts_reach_the_policy():
    from rsb_mj.evaluation.jobs import Job
    from rsb_mj.evaluation.worker import build_policy

    job = Job("RSB-Math-4", "eval", 0, "openpi:127.0.0.1:1", 5, "", 2.5, 7.0, 30.0)
    policy = build_policy(job)
    assert (policy.connect_timeout_s, policy.request_timeout_s) == (2.5, 7.0)
