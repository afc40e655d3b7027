"""Whose fault an episode's error was (:mod:`rsb_mj.evaluation.faults`): a failing user
policy's episodes are scored failures, dying workers and a failing simulator give error
records that resume retries.

In-process and pooled runs against the signals-only fake environment (:mod:`fakes`) and
the misbehaving policies of :mod:`user_policies`.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from rsb_mj.errors import InfraError
from rsb_mj.evaluation.faults import POLICY_FAULT, policy_fault, server_fault
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.pool import WORKER_DIED, processes
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.evaluation.worker import error_record
from rsb_mj.lang import load_task
from rsb_mj.reporting.validation import record_problems
from rsb_mj.suites import get_suite

from .fakes import FakeEnv, ToyPickPolicy, fake_env_factory, flaky_env_factory, make_episode

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
def test_a_failing_user_policy_fails_its_episodes_and_the_run_goes_on(tmp_path, name):
    records = run_eval(_config(tmp_path, [name, "ok"]), env_factory=fake_env_factory)
    bad = [
        (r.index, r.termination, r.error_kind, r.success, r.error)
        for r in records
        if r.policy.endswith(name)
    ]
    message = f"PolicyError: policy {M}:{name}: {FAILURES[name]}"
    assert bad == [(i, POLICY_FAULT, "policy", False, message) for i in (0, 1)]
    assert all(record_problems(r) == [] for r in records)
    good = [r for r in records if r.policy == f"{M}:ok"]
    assert [(r.index, r.termination, r.steps) for r in good] == [
        (0, "step_limit", 3),
        (1, "step_limit", 3),
    ]
    # scored: counted in n (and as failures in GSR and TSR), none an error
    rows = {m.policy: m for m in summarize(records)}
    assert (rows[f"{M}:{name}"].episodes, rows[f"{M}:{name}"].errors) == (2, 0)
    assert (rows[f"{M}:{name}"].policy_faults, rows[f"{M}:{name}"].tsr.value) == (2, 0.0)


def test_system_exit_in_a_pool_worker_is_a_policy_fault_not_an_exit(tmp_path):
    cfg = _config(tmp_path, ["system_exit", "factory_exits", "ok"], workers=2)
    records = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.policy.split(":")[1], r.index, r.termination) for r in records] == [
        ("system_exit", 0, POLICY_FAULT),
        ("factory_exits", 0, POLICY_FAULT),
        ("ok", 0, "step_limit"),
        ("system_exit", 1, POLICY_FAULT),
        ("factory_exits", 1, POLICY_FAULT),
        ("ok", 1, "step_limit"),
    ]


def test_a_policy_fault_is_not_rerun_on_resume(tmp_path, monkeypatch):
    flag = tmp_path / "fail"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    cfg = _config(tmp_path, ["fail_if_flagged"], episodes=2)
    first = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.termination, r.error) for r in first] == [
        (POLICY_FAULT, f"PolicyError: policy {M}:fail_if_flagged: act() raised "
         "ConnectionError: lost the GPU")
    ] * 2  # fmt: skip
    flag.unlink()  # it would succeed now: too late, the episodes were scored
    assert run_eval(cfg, env_factory=fake_env_factory) == first
    assert (cfg.out / RECORDS_FILE).read_text().count("\n") == 2


def test_error_records_are_retried_on_resume_and_then_superseded(tmp_path, monkeypatch):
    flag = tmp_path / "fail"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))
    cfg = _config(tmp_path, ["ok"], episodes=3)
    first = run_eval(cfg, env_factory=flaky_env_factory)
    assert {(r.termination, r.error_kind) for r in first} == {("error", "infra")}
    assert first[0].error == (
        "InfraError: env.step failed: RuntimeError: the simulator went unstable"
    )
    again = run_eval(cfg, env_factory=flaky_env_factory)  # still failing: retried, still errors
    assert [r.termination for r in again] == ["error"] * 3
    flag.unlink()
    final = run_eval(cfg, env_factory=flaky_env_factory)
    assert [(r.index, r.termination) for r in final] == [(i, "step_limit") for i in range(3)]
    path = cfg.out / RECORDS_FILE
    assert path.read_text().count("\n") == 9  # 3 errors, 3 retried errors, 3 scored
    assert [(r.index, r.termination) for r in read_records(path)] == [
        (i, "step_limit") for i in range(3)
    ]
    assert run_eval(cfg, env_factory=flaky_env_factory) == final  # nothing left to run
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


def test_an_episode_over_its_limit_waiting_for_the_policy_is_the_policys_fault(tmp_path):
    cfg = _config(tmp_path, ["hangs"], episodes=1, episode_timeout_s=0.5)
    (record,) = run_eval(cfg, env_factory=fake_env_factory)
    assert (record.termination, record.error_kind, record.error) == (
        POLICY_FAULT,
        "policy",
        f"PolicyError: policy {M}:hangs: episode 0 exceeded its wall-clock limit of 0.5 s "
        "(--episode-timeout) waiting for the policy's answer",
    )


def test_an_episode_over_its_limit_in_the_simulator_is_an_infra_error(tmp_path, monkeypatch):
    monkeypatch.setenv("RSB_TEST_SLOW", "0.3")  # each env.step; the policy answers at once
    cfg = _config(tmp_path, ["ok"], episodes=1, episode_timeout_s=0.5, prefix="inprocess:")
    (record,) = run_eval(cfg, env_factory=flaky_env_factory)
    assert (record.termination, record.error_kind, record.error) == (
        "error",
        "infra",
        "InfraError: episode 0 exceeded its wall-clock limit of 0.5 s (--episode-timeout)",
    )


class SlowToy(ToyPickPolicy):
    """Answers each action 0.2 s late."""

    name = "slow-toy"

    def act(self, obs):
        time.sleep(0.2)
        return super().act(obs)


def test_off_the_main_thread_an_answer_past_the_limit_is_the_policys_fault():
    """No alarm interrupts a call off the main thread (a Ray task's): the answer that comes
    back past the episode's limit is the policy's fault, not the simulator's."""
    problem = load_task(get_suite("RSB-Math-4").path)
    rollout = Rollout(
        FakeEnv(), SlowToy("A"), make_episode(), problem, max_steps=40, episode_timeout_s=0.3
    )
    out: list = []
    thread = threading.Thread(target=lambda: out.append(rollout.run()))
    thread.start()
    thread.join(30)
    (record,) = out
    assert (record.termination, record.error_kind) == ("error", "policy")
    assert record.error == (
        "PolicyError: policy slow-toy: episode 0 exceeded its wall-clock limit of 0.3 s "
        "(--episode-timeout) waiting for the policy's answer"
    )
    assert policy_fault(record).termination == POLICY_FAULT


def _server_error(error: str, policy: str = "openpi:localhost:8000", kind: str = "infra"):
    job = Job("RSB-Math-4", "eval", 0, policy, 3, "", 5.0, 60.0)
    return error_record(job, kind, error)


def test_a_servers_network_faults_are_errors_in_an_ordinary_run_and_its_own_when_sealed():
    timeout = _server_error(
        "InfraError: openpi server ws://localhost:8000: no answer within the request timeout (60 s)"
    )
    assert not server_fault(timeout, sealed=False)
    assert policy_fault(timeout) == timeout  # excluded, retried
    assert server_fault(timeout, sealed=True)
    scored = policy_fault(timeout, sealed=True)
    assert (scored.termination, scored.error_kind, scored.success, scored.is_error) == (
        POLICY_FAULT, "policy", False, False
    )  # fmt: skip
    assert scored.failure_reason == f"the policy failed: {timeout.error}"
    assert record_problems(scored) == []
    # what the server says is its own in every run
    garbage = _server_error(
        "PolicyError: openpi server ws://localhost:8000: answer must be a map with 'actions', "
        "got int 7",
        kind="policy",
    )
    assert policy_fault(garbage).termination == POLICY_FAULT
    # a simulator crash is never the policy's, nor a user policy's infra error a server's
    crash = _server_error("InfraError: env.step failed: MuJoCo: unstable")
    assert not server_fault(crash, sealed=True) and policy_fault(crash, sealed=True) == crash
    user = _server_error(timeout.error, policy="my.module:make")
    assert policy_fault(user, sealed=True).is_error


def test_server_timeouts_reach_the_policy():
    from rsb_mj.evaluation.jobs import Job
    from rsb_mj.evaluation.worker import build_policy

    job = Job("RSB-Math-4", "eval", 0, "openpi:127.0.0.1:1", 5, "", 2.5, 7.0, 30.0)
    policy = build_policy(job)
    assert (policy.connect_timeout_s, policy.request_timeout_s) == (2.5, 7.0)
