"""``rsb eval --batch``: episodes in lockstep give the records of an unbatched run, one
episode's failure stays its own, slots refill at once, queries are batched.

Runs against the signals-only fake environment (:mod:`fakes`) with the deterministic
policies of :mod:`batch_policies` (in a policy process unless ``inprocess:``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.tables.episode_source import load_episode

from .fakes import fake_env_factory

M = "evaluation.batch_policies"
ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path, spec, *, batch, episodes=6, workers=1, name="run", **kw):
    return EvalConfig(
        suites=("RSB-Math-4",), policies=(spec,), episodes=episodes, out=tmp_path / name,
        workers=workers, max_steps=kw.pop("max_steps", 30), progress=False, batch=batch, **kw,
    )  # fmt: skip


def _lines(records) -> list[str]:
    """Each record as JSON without its wall time, in plan order."""
    return [json.dumps({**dataclasses.asdict(r), "wall_s": 0.0}, sort_keys=True) for r in records]


def _file_lines(path) -> list[str]:
    """The records file's lines without wall times, sorted by key."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        row["wall_s"] = 0.0
    rows.sort(key=lambda r: (r["index"], r["variant"]))
    return [json.dumps(r, sort_keys=True) for r in rows]


#: (termination, steps, success) of the six episodes at a 30- and a 3-step limit.
ENDINGS = {
    30: [("wrong_choice", 1, False), ("wrong_choice", 1, False), ("success", 13, True),
         ("success", 13, True), ("wrong_choice", 1, False), ("wrong_choice", 1, False)],
    3: [("wrong_choice", 1, False), ("wrong_choice", 1, False), ("step_limit", 3, False),
        ("step_limit", 3, False), ("wrong_choice", 1, False), ("wrong_choice", 1, False)],
}  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "batch", "workers", "max_steps"),
    [
        (f"inprocess:{M}:picker", 4, 1, 30),  # not batched: one policy per slot
        (f"inprocess:{M}:batch_picker", 4, 1, 30),  # batched: one act_batch per round
        (f"{M}:batch_picker", 3, 1, 3),  # batched, in a policy process
        (f"{M}:picker", 3, 2, 3),  # a policy process per slot, on two workers
    ],
)
def test_batched_records_are_the_unbatched_records(tmp_path, spec, batch, workers, max_steps):
    plain = run_eval(
        _config(tmp_path, spec, batch=1, name="plain", max_steps=max_steps),
        env_factory=fake_env_factory,
    )
    batched = run_eval(
        _config(tmp_path, spec, batch=batch, workers=workers, name="batched", max_steps=max_steps),
        env_factory=fake_env_factory,
    )
    assert _lines(batched) == _lines(plain)
    assert _file_lines(tmp_path / "batched" / RECORDS_FILE) == _file_lines(
        tmp_path / "plain" / RECORDS_FILE
    )
    # the episodes end in several ways, with text and failure reasons (the policy's phase
    # at the step limit comes from its status at the end)
    assert [(r.termination, r.steps, r.success) for r in plain] == ENDINGS[max_steps]
    assert plain[2].text == "I pick candidate 1 (option B)"
    assert plain[0].failure_reason == "grasped block_d instead of block_b"
    if max_steps == 3:
        assert plain[2].failure_reason == "step limit 3 reached in phase t4"


def test_one_act_batch_call_per_round_and_slots_refill_at_once(tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("BATCH_LOG", str(log))
    records = run_eval(
        _config(tmp_path, f"inprocess:{M}:batch_holder", batch=4, episodes=6, max_steps=8),
        env_factory=fake_env_factory,
    )
    assert [(r.index, r.termination, r.steps) for r in records] == [
        (0, "wrong_choice", 1), (1, "wrong_choice", 1), (2, "step_limit", 8),
        (3, "step_limit", 8), (4, "wrong_choice", 1), (5, "wrong_choice", 1),
    ]  # fmt: skip
    name = {_instruction(i): i for i in range(6)}
    events = [json.loads(line) for line in log.read_text().splitlines()]
    resets = [(e["reset"], name[e["episode"]]) for e in events if "reset" in e]
    acts = [[name[x] for x in e["episodes"]] for e in events if "act" in e]
    assert resets == [(0, 0), (1, 1), (2, 2), (3, 3), (0, 4), (1, 5)]  # freed slots reused
    assert acts[0] == [0, 1, 2, 3]  # the first four episodes in one call
    assert max(map(len, acts)) == 4
    # episodes 4 and 5 start while 2 and 3 are still being asked (one call per step to 8)
    started = next(i for i, e in enumerate(events) if e.get("reset") == 0 and i > 0)
    last_of_2 = max(i for i, e in enumerate(events) if "act" in e and 2 in e["act"])
    assert started < last_of_2


def _instruction(index: int) -> str:
    return load_episode("RSB-Math-4", "eval", index).instruction


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("fails_episode_one", "act_batch() raised RuntimeError: no action for episode 1"),
        ("nan_for_episode_one", "act() returned non-finite values at (row, index) [(0, 3)]"),
    ],
)
def test_a_failing_episode_fails_alone(tmp_path, monkeypatch, name, error):
    monkeypatch.setenv("BATCH_FAIL", _instruction(1))
    good = run_eval(
        _config(tmp_path, f"{M}:batch_picker", batch=3, episodes=4, name="good"),
        env_factory=fake_env_factory,
    )
    records = run_eval(
        _config(tmp_path, f"{M}:{name}", batch=3, episodes=4), env_factory=fake_env_factory
    )
    assert [(r.index, r.termination, r.error_kind) for r in records] == [
        (0, "wrong_choice", None), (1, "policy_fault", "policy"), (2, "success", None),
        (3, "success", None),
    ]  # fmt: skip
    assert records[1].error == f"PolicyError: policy {M}:{name}: {error}"
    same = ("termination", "steps", "choice", "text", "failure_reason")
    for r, g in zip(records, good, strict=True):
        if r.index != 1:
            assert [getattr(r, k) for k in same] == [getattr(g, k) for k in same]


def test_a_raising_act_batch_fails_its_calls_episodes_for_good(tmp_path, monkeypatch):
    monkeypatch.setenv("BATCH_FAIL", _instruction(1))
    cfg = _config(tmp_path, f"{M}:raises_with_episode_one", batch=2, episodes=4)
    records = run_eval(cfg, env_factory=fake_env_factory)
    message = (
        f"PolicyError: policy {M}:raises_with_episode_one: act_batch() raised ValueError: "
        "the GPU fell over"
    )
    assert [(r.index, r.termination, r.error) for r in records] == [
        (0, "policy_fault", message), (1, "policy_fault", message), (2, "success", None),
        (3, "success", None),
    ]  # fmt: skip
    monkeypatch.setenv("BATCH_FAIL", "no episode")
    assert run_eval(cfg, env_factory=fake_env_factory) == records  # the policy's: not rerun
    assert [r.index for r in read_records(cfg.out / RECORDS_FILE)] == [0, 1, 2, 3]
    assert (cfg.out / RECORDS_FILE).read_text().count("\n") == 4


def test_a_hung_call_ends_its_episodes_at_their_limit_and_the_rest_go_on(tmp_path, monkeypatch):
    monkeypatch.setenv("BATCH_FAIL", _instruction(1))
    cfg = _config(
        tmp_path, f"{M}:hangs_with_episode_one", batch=2, episodes=4, episode_timeout_s=4.0
    )
    records = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.index, r.termination, r.error_kind, r.error) for r in records] == [
        (i, "policy_fault", "policy", f"PolicyError: policy {M}:hangs_with_episode_one: "
         f"episode {i} exceeded its wall-clock limit of 4 s (--episode-timeout) waiting for "
         "the policy's answer") for i in (0, 1)
    ] + [(2, "success", None, None), (3, "success", None, None)]  # fmt: skip


def test_a_batched_object_without_reset_slot_is_refused(tmp_path):
    (record,) = run_eval(
        _config(tmp_path, f"{M}:no_reset_slot", batch=2, episodes=1), env_factory=fake_env_factory
    )
    assert record.error == (
        f"PolicyError: policy {M}:no_reset_slot: building it failed: EvalError: policy "
        f"'{M}:no_reset_slot': no_reset_slot() returned an object with act_batch(obs, slots) "
        "but without reset_slot(slot, env, obs, info); a batched policy needs both"
    )


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"batch": 0}, r"^--batch 0: must be 1\.\.256$"),
        ({"batch": 257}, r"^--batch 257: must be 1\.\.256$"),
        ({"batch": 2, "ray": ""}, r"^--batch 2 with --ray: a Ray task runs one episode; use"),
    ],
)
def test_bad_batch_settings_are_refused(tmp_path, kw, message):
    with pytest.raises(EvalError, match=message):
        _config(tmp_path, "noop", **kw)


def test_expert_in_lockstep_on_mujoco_gives_the_unbatched_records(tmp_path):
    """Real RsbEnv: the built-in expert (a simulator policy, one per slot, planning on its
    own thread while the loop steps the other episodes) records the same bytes at --batch 3."""
    runs = {}
    for batch in (1, 3):
        cfg = EvalConfig(
            suites=("RSB-Math-4",), policies=("expert",), episodes=3, out=tmp_path / f"b{batch}",
            workers=1, max_steps=120, progress=False, batch=batch,
        )  # fmt: skip
        runs[batch] = _lines(run_eval(cfg))
    assert runs[3] == runs[1]
    assert [json.loads(line)["steps"] for line in runs[1]] == [120, 120, 120]


def _cli(out, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--policy", "noop",
        "--out", str(out), "--no-progress", *extra,
    ]  # fmt: skip


def test_a_killed_batched_run_resumes_to_exactly_n_episodes(tmp_path):
    """rsb eval --batch 3 --workers 2 on MuJoCo, killed after its first records: the resumed
    run (batched again) runs only what is missing; one record per episode."""
    out = tmp_path / "run"
    cmd = _cli(out, "--episodes", "8", "--max-steps", "60", "--workers", "2", "--batch", "3")
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    records = out / RECORDS_FILE
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if records.exists() and records.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()
    killed_at = len(read_records(records))
    assert 1 <= killed_at < 8
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(r.index for r in read_records(records)) == list(range(8))
    assert records.read_text().count("\n") == 8
    assert {(r.termination, r.steps) for r in read_records(records)} == {("step_limit", 60)}


def test_the_cli_refuses_a_bad_batch():
    done = subprocess.run(
        _cli("/nonexistent/never", "--batch", "0"), cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--batch 0: must be 1..256" in done.stderr


def test_the_env_pool_keeps_a_slot_s_worth_of_spare_environments():
    from rsb_mj.evaluation.worker import EnvPool

    from .fakes import FakeEnv

    pool = EnvPool()
    pool.spare = 2
    a, b = ("A", "eval", ()), ("B", "eval", ())
    envs = [pool.take(k, FakeEnv) for k in (a, a, b)]  # nothing free: three built
    for key, env in zip((a, a, b), envs, strict=True):
        pool.give(key, env)
    assert [e.closed for e in envs] == [True, False, False]  # the one unused longest
    assert pool.take(a, FakeEnv) is envs[1] and pool.take(b, FakeEnv) is envs[2]
    fresh = pool.take(a, FakeEnv)
    assert fresh not in envs
    pool.give(a, fresh)
    pool.close_all()
    assert fresh.closed
