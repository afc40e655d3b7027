"""Tests of the vla-eval plugin: the benchmark's contract with vla-eval's real classes, the
shipped configs, nSG from result files, and ``vla-eval run --no-docker`` end to end
against a replay server."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "vla_eval", reason="the vla-eval plugin needs the extra: pip install -e '.[vla-eval]'"
)

from vla_eval.benchmarks.base import StepBenchmark
from vla_eval.cli.config_loader import load_config
from vla_eval.registry import resolve_import_string
from vla_eval.specs import check_specs

from rsb_mj.errors import EnvError, EvalError, RsbError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.sealed import Seal, sealed_order, verify
from rsb_mj.integrations.vla_eval import POLICY, RsbBenchmark, config_path
from rsb_mj.integrations.vla_eval_results import (
    format_table,
    summarize,
    summarize_aggregate,
)
from rsb_mj.suites import SUITES


@pytest.mark.parametrize("suite", list(SUITES))
def test_shipped_configs_load_and_name_their_suite(suite):
    cfg = load_config(str(config_path(suite)))
    (entry,) = cfg["benchmarks"]
    assert entry["name"] == suite and entry["params"]["suite"] == suite
    assert entry["params"]["split"] == "eval" and entry["episodes_per_task"] == 500
    assert resolve_import_string(entry["benchmark"]) is RsbBenchmark
    assert "docker" not in cfg  # runs with or without --no-docker, on the host


def test_benchmark_contract():
    bench = RsbBenchmark("rsb-general-10", width=32, height=24)
    assert isinstance(bench, StepBenchmark)
    assert bench.get_tasks() == [{"name": "RSB-General-10", "suite": "RSB-General-10"}]
    assert bench.get_metadata() == {"max_steps": 400, "max_episodes_per_task": 500}
    assert RsbBenchmark("RSB-Math-4", split="train", start=990).get_metadata() == {
        "max_steps": 400,
        "max_episodes_per_task": 10,
    }
    spec = bench.get_action_spec()
    assert check_specs(spec, spec, bench.get_observation_spec(), bench.get_observation_spec()) == []
    assert spec["joint_positions"].dims == 14
    assert RsbBenchmark.render_backends == {"gpu", "cpu"}


def test_shuffle_seed_draws_the_rows_in_a_secret_order():
    plain = RsbBenchmark("RSB-Math-4", start=5)
    mixed = RsbBenchmark("RSB-Math-4", start=5, shuffle_seed=7)
    assert plain._rows[0].index == 5
    assert sorted(r.index for r in mixed._rows) == list(range(5, 500))
    assert [r.index for r in mixed._rows][:5] != list(range(5, 10))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"suite": "RSB-Math-5"}, r"unknown suite 'RSB-Math-5'; valid choices: RSB-Math-4"),
        ({"split": "test"}, r"unknown split 'test'; valid choices: train, eval"),
        ({"start": 500}, r"start 500: the RSB-Math-4 eval table has rows 0\.\.499"),
        # these three were accepted and failed every episode's reset
        ({"width": 0}, r"^width 0, height 240: each must be 1\.\.4096 pixels$"),
        ({"height": 10**5}, r"^width 320, height 100000: each must be 1\.\.4096 pixels$"),
        ({"quality": "ultra"}, r"^quality 'ultra'; valid choices: fast, full$"),
    ],
)
def test_bad_params_are_refused(kwargs, message):
    with pytest.raises(RsbError, match=message):
        RsbBenchmark(**kwargs)


def test_one_step_observation_and_result():
    bench = RsbBenchmark("RSB-Math-4", width=32, height=24)
    raw = bench.reset({"name": "RSB-Math-4", "episode_idx": 3})
    obs = bench.make_obs(raw, {})
    assert sorted(obs["images"]) == ["cam_high", "cam_left_wrist", "cam_right_wrist"]
    assert obs["images"]["cam_high"].shape == (24, 32, 3)
    assert obs["state"].dtype == np.float32 and obs["state"].shape == (14,)
    assert obs["task_description"] == bench._rows[3].instruction
    res = bench.step({"actions": obs["state"]})
    assert res.done is False and res.reward == 0.0
    assert bench.get_step_result(res) == {
        "success": False,
        "grasped": False,
        "correct_choice": False,
        "choice": "",
        "choices": 4,
    }
    with pytest.raises(EnvError, match=r"shape \(2, 14\)\}; expected one \(14,\) joint-position"):
        bench.step({"actions": np.zeros((2, 14))})
    with pytest.raises(RsbError, match=r"episode 500: RSB-Math-4 eval has 500 rows from row 0"):
        bench.reset({"episode_idx": 500})
    bench.cleanup()


class ListRecorder:
    """Stands in for vla-eval's EpisodeRecorder: keeps what the benchmark records."""

    def __init__(self):
        self.frames, self.steps = [], []

    def record_video(self, frame):
        self.frames.append(frame)

    def record_step(self, **fields):
        self.steps.append(fields)


def test_grippers_travel_in_the_exports_convention_and_steps_are_recorded():
    bench = RsbBenchmark("RSB-Math-4", width=32, height=24)
    assert bench.convention.name == "aloha"  # rsb export-lerobot's
    bench._recorder = recorder = ListRecorder()
    raw = bench.reset({"episode_idx": 0})
    obs = bench.make_obs(raw, {})
    expected = bench.convention.state_to_server(raw["state"])
    np.testing.assert_allclose(obs["state"], expected.astype(np.float32))
    hold = bench.get_hold_action(None)["actions"]  # before the first action: the reset joints
    assert raw["state"][6] == raw["state"][13] == 1.0  # open, and ALOHA's action scale says:
    np.testing.assert_allclose(hold[[6, 13]], [1.0011, 1.0011], atol=1e-4)
    np.testing.assert_allclose(bench.convention.actions_from_server(hold[None])[0], raw["state"],
                               atol=1e-6)  # fmt: skip
    assert bench.get_hold_action({"actions": hold}) == {"actions": hold}
    res = bench.step({"actions": hold})
    (step,) = recorder.steps
    assert sorted(step) == ["action", "done", "grasped", "reward", "state", "success"]
    np.testing.assert_allclose(step["action"], raw["state"], atol=1e-6)  # rsb_mj's scale
    np.testing.assert_allclose(step["state"], res.obs["state"].astype(np.float32))
    assert [f.shape for f in recorder.frames] == [(24, 32, 3), (24, 32, 3)]
    np.testing.assert_array_equal(recorder.frames[1], res.obs["images"]["head"])
    bench.cleanup()


def test_hold_before_any_reset_is_the_home_pose_and_rsb_convention_sends_raw_state():
    from rsb_mj.scene.aloha import HOME_ARM

    bench = RsbBenchmark("RSB-Math-4", width=32, height=24, convention="rsb")
    home = np.array([*HOME_ARM, 1.0, *HOME_ARM, 1.0], np.float32)
    np.testing.assert_array_equal(bench.get_hold_action(None)["actions"], home)
    raw = bench.reset({"episode_idx": 0})
    np.testing.assert_array_equal(bench.make_obs(raw, {})["state"], raw["state"].astype(np.float32))
    bench.cleanup()


def test_without_wrist_images_and_state_only_the_head_camera_is_rendered_and_sent():
    bench = RsbBenchmark(
        "RSB-Math-4", width=32, height=24, send_wrist_image=False, send_state=False
    )
    assert sorted(bench.get_observation_spec()) == ["cam_high", "language"]
    raw = bench.reset({"episode_idx": 0})
    assert sorted(raw["images"]) == ["head"]  # the env renders one camera
    obs = bench.make_obs(raw, {})
    assert sorted(obs) == ["images", "task_description"] and sorted(obs["images"]) == ["cam_high"]
    full = RsbBenchmark("RSB-Math-4")
    assert sorted(full.get_observation_spec()) == [
        "cam_high", "cam_left_wrist", "cam_right_wrist", "language", "state"
    ]  # fmt: skip
    bench.cleanup()


def aggregate(tmp_path, name, metrics, errors=0):
    episodes = [{"episode_id": i, "metrics": m} for i, m in enumerate(metrics)]
    episodes += [
        {"episode_id": 100 + i, "metrics": {"success": False}, "failure_reason": "timeout"}
        for i in range(errors)
    ]
    path = tmp_path / f"{name}_aggregate.json"
    path.write_text(
        json.dumps({"benchmark": name, "tasks": [{"task": name, "episodes": episodes}]})
    )
    return path


def test_nsg_from_result_files(tmp_path):
    ep = lambda s, g: {"success": s, "grasped": g, "choices": 4}  # noqa: E731
    aggregate(
        tmp_path,
        "RSB-Math-4",
        [ep(True, True)] * 3 + [ep(False, True)] * 3 + [ep(False, False)] * 2,
        errors=1,
    )
    aggregate(tmp_path, "RSB-Math-10", [{**ep(False, False), "choices": 10}] * 2)
    rows = summarize(tmp_path)
    assert [(r.benchmark, r.episodes, r.errors, r.grasped, r.success) for r in rows] == [
        ("RSB-Math-10", 2, 0, 0, 0),
        ("RSB-Math-4", 8, 1, 6, 3),
    ]
    assert rows[1].nsg == pytest.approx((3 / 6 - 1 / 4) / (3 / 4))
    assert rows[0].nsg is None
    assert format_table(rows).splitlines()[2:] == [
        "| RSB-Math-10 | 10 | 0/2 = 0.000 [0.000, 0.658] | 0/2 = 0.000 [0.000, 0.658] | n/a | 0 |",
        "| RSB-Math-4 | 4 | 6/8 = 0.750 [0.409, 0.929] | 3/8 = 0.375 [0.137, 0.694] | 0.333 | 1 |",
    ]


def test_foreign_result_files_are_refused(tmp_path):
    with pytest.raises(EvalError, match=r"no vla-eval results \(\*_aggregate\.json\)"):
        summarize(tmp_path)
    path = aggregate(tmp_path, "LIBERO", [{"success": True}])
    with pytest.raises(
        EvalError, match=r"episode 0 has metrics \['success'\]; expected success, grasped"
    ):
        summarize_aggregate(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the replay server exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"replay server not listening on {port} after {timeout} s")


@contextlib.contextmanager
def replay_server(demo_dir: Path) -> Iterator[int]:
    """The replay server (:mod:`rsb_mj.integrations.vla_eval_replay`) of ``demo_dir`` in a
    child process, listening on the port yielded; stopped on exit."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "rsb_mj.integrations.vla_eval_replay",
         "--args.demo_dir", str(demo_dir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_port(port, server)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_vla_eval_run_no_docker_replays_expert_demos_to_success(tmp_path):
    """vla-eval's own CLI and runner on the shipped RSB-Math-4 config, against a server
    replaying two recorded expert demonstrations (train rows 0-1) open loop: 2/2 succeed."""
    from rsb_mj.datasets.demos import write_demos

    res = write_demos("RSB-Math-4", "train", 2, tmp_path / "demos", cameras=(), progress=False)
    assert res["failed"] == 0
    with replay_server(tmp_path / "demos") as port:
        run = subprocess.run(
            ["vla-eval", "run", "--no-docker", "-c", str(config_path("RSB-Math-4")),
             "--server-url", f"ws://127.0.0.1:{port}", "--output-dir", str(tmp_path / "results"),
             "--benchmark-field", "episodes_per_task=2",
             "--param", "split=train", "--param", "width=64", "--param", "height=48",
             "--record-video"],
            capture_output=True, text=True, timeout=900, env={**os.environ, "NO_COLOR": "1"},
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "RSB-Math-4: 100.0%" in run.stdout
    (row,) = summarize(tmp_path / "results")
    assert (row.benchmark, row.choices, row.episodes, row.errors) == ("RSB-Math-4", 4, 2, 0)
    assert (row.grasped, row.success, row.nsg) == (2, 2, 1.0)
    videos = sorted(
        p.name for p in (tmp_path / "results" / "episodes" / "RSB-Math-4").glob("*.mp4")
    )
    assert videos == ["task0000_ep0000_success.mp4", "task0000_ep0001_success.mp4"]


def test_a_partial_aggregate_is_summarized_and_flagged(tmp_path):
    path = aggregate(tmp_path, "RSB-Math-4", [{"success": True, "grasped": True, "choices": 4}])
    body = json.loads(path.read_text())
    path.write_text(json.dumps({**body, "partial": True}))
    (row,) = summarize(tmp_path)
    assert (row.episodes, row.success, row.partial) == (1, 1, True)
    assert format_table([row]).splitlines()[2].startswith("| RSB-Math-4 (partial) | 4 | 1/1")


def test_the_replay_server_batches_across_sessions(tmp_path):
    """vla-eval's batched dispatch hands predict_batch several sessions at once; each is
    answered from its own cursor (two sessions on one instruction, at different steps)."""
    from vla_eval.model_servers.base import SessionContext

    from rsb_mj.datasets.demos import write_demos
    from rsb_mj.integrations.vla_eval_replay import DemoReplayServer

    assert (
        write_demos("RSB-Math-4", "train", 1, tmp_path, cameras=(), progress=False)["failed"] == 0
    )
    server = DemoReplayServer(demo_dir=str(tmp_path), max_batch_size=4)
    (actions,) = server._actions.values()
    (instruction,) = server._actions
    a, b = (SessionContext(session_id=s, episode_id="e0", mode="sync") for s in ("a", "b"))
    obs = {"task_description": instruction}
    server.predict(obs, a)  # session a is one step ahead
    got = server.predict_batch([obs, obs], [a, b])
    assert np.array_equal(got[0]["actions"], actions[1])
    assert np.array_equal(got[1]["actions"], actions[0])
    assert server.max_batch_size == 4


@pytest.mark.slow
def test_two_shards_against_one_batching_server_merge_into_the_rsb_metrics(tmp_path):
    """vla-eval's scale path: two ``vla-eval run`` shards (one --eval-id, one output folder)
    step RSB-Math-4 train rows 0-3 against one replay server with batching on
    (max_batch_size 2); ``vla-eval export`` merges them, and the RSB summary has every row
    once, each choosing its correct option, as an unsharded run does."""
    from rsb_mj.datasets.demos import write_demos
    from rsb_mj.tables.episode_source import load_episode

    res = write_demos("RSB-Math-4", "train", 4, tmp_path / "demos", cameras=(), progress=False)
    assert res["failed"] == 0
    port, log = free_port(), tmp_path / "batch_sizes.log"
    here = os.path.dirname(__file__)
    server = subprocess.Popen(
        [sys.executable, os.path.join(here, "batch_log_server.py"),
         "--args.demo_dir", str(tmp_path / "demos"), "--args.max_batch_size", "2",
         "--args.max_wait_time", "0.05", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "BATCH_SIZES_LOG": str(log)},
    )  # fmt: skip
    results = tmp_path / "results"
    env = {**os.environ, "NO_COLOR": "1"}
    try:
        wait_for_port(port, server)
        shards = []
        for k in range(2):
            cmd = [
                "vla-eval", "run", "--no-docker", "-c", str(config_path("RSB-Math-4")),
                "--server-url", f"ws://127.0.0.1:{port}", "--output-dir", str(results),
                "--benchmark-field", "episodes_per_task=4", "--param", "split=train",
                "--param", "width=64", "--param", "height=48", "--shard-id", str(k),
                "--num-shards", "2", "--eval-id", "rsb-shards",
            ]  # fmt: skip
            shards.append(
                subprocess.Popen(
                    cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
                )
            )
        outs = [shard.communicate(timeout=900) for shard in shards]
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert [s.returncode for s in shards] == [0, 0], [err[-2000:] for _, err in outs]
    export = subprocess.run(
        ["vla-eval", "export", str(results / "recording-rsb-shards.sqlite")],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert export.returncode == 0, export.stderr[-2000:]
    body = json.loads((results / "RSB-Math-4_aggregate.json").read_text())
    (task,) = body["tasks"]
    episodes = sorted(task["episodes"], key=lambda e: e["episode_id"])
    assert [e["episode_id"] for e in episodes] == [0, 1, 2, 3]
    assert len({e["sid"] for e in episodes}) == 2  # both shards ran episodes
    assert [e["metrics"]["choice"] for e in episodes] == [
        load_episode("RSB-Math-4", "train", i).correct for i in range(4)
    ]
    assert "partial" not in body
    sizes = [int(n) for n in log.read_text().split()]
    assert max(sizes) == 2 and set(sizes) <= {1, 2}  # the server batched the two shards
    (row,) = summarize(results)
    assert (row.benchmark, row.choices, row.episodes, row.errors, row.partial) == (
        "RSB-Math-4", 4, 4, 0, False,
    )  # fmt: skip
    assert (row.grasped, row.success, row.nsg) == (4, 4, 1.0)


class CapturingConnection:
    """Stands in for vla-eval's Connection: keeps every message the model server would get
    and answers each observation with the measured joints (hold still)."""

    def __init__(self):
        self.sent = []

    async def start_episode(self, payload):
        self.sent.append(("episode_start", payload))

    async def act(self, obs):
        self.sent.append(("observation", sorted(obs)))
        return {"actions": obs["state"]}

    async def end_episode(self, result):
        self.sent.append(("episode_end", result))


def run_one_episode(bench, episode_idx, max_steps):
    """One episode through vla-eval's own SyncEpisodeRunner; what the server received."""
    import anyio
    from vla_eval.runners.sync_runner import SyncEpisodeRunner

    conn = CapturingConnection()
    task = {**bench.get_tasks()[0], "episode_idx": episode_idx}
    result = anyio.run(
        lambda: SyncEpisodeRunner().run_episode(bench, task, conn, max_steps=max_steps)
    )
    return result, conn.sent


SECRET = b"vla-eval sealed test secret, 32+ bytes long"


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET + b"\n")
    path.chmod(0o600)
    return path


def outcome_lines(path):
    """The outcome lines of a sealed run's outcomes file (its closing record left out)."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(rows[-1]) == ["closing", "signature"]
    return rows[:-1]


def _sealed(tmp_path, secret, **kw):
    return RsbBenchmark(
        "RSB-Math-4", width=32, height=24, sealed=True, outcomes=str(tmp_path / "outcomes.jsonl"),
        secret_file=str(secret), **kw,
    )  # fmt: skip


def test_a_sealed_run_sends_the_server_no_outcome_and_writes_them_signed_at_cleanup(
    tmp_path, secret
):
    outcomes = tmp_path / "outcomes.jsonl"
    bench = _sealed(tmp_path, secret)
    assert bench.get_metric_keys() == {}
    result, sent = run_one_episode(bench, 0, max_steps=3)
    assert [kind for kind, _ in sent] == ["episode_start"] + ["observation"] * 3 + ["episode_end"]
    assert sent[0][1] == {"task": {"name": "RSB-Math-4", "suite": "RSB-Math-4", "episode_idx": 0}}
    assert sent[1][1] == ["images", "state", "task_description"]
    assert sent[-1][1] == {"metrics": {"sealed": True}, "steps": 3, "elapsed_sec": ANY_FLOAT}
    assert result["metrics"] == {"sealed": True}
    assert not outcomes.exists()  # nothing written before the run ends
    bench.cleanup()
    line, closing = (json.loads(row) for row in outcomes.read_text().splitlines())
    seal = Seal.read(secret)
    assert line == {
        "suite": "RSB-Math-4",
        "row": bench._row_index[0],
        "success": False,
        "grasped": False,
        "correct_choice": False,
        "choice": "",
        "choices": 4,
        "policy_fault": False,
        "signature": seal.signature(  # chained to the run's nonce
            bench.nonce,
            json.dumps({k: v for k, v in line.items() if k != "signature"}, sort_keys=True),
        ),
    }
    body = {"closing": {"count": 1, "chain": line["signature"], "nonce": bench.nonce}}
    signature = seal.signature(line["signature"], json.dumps(body, sort_keys=True))
    assert closing == {**body, "signature": signature}
    assert verify(outcomes, seal, bench.nonce) == closing["signature"]
    assert outcomes.stat().st_mode & 0o777 == 0o600


def test_a_sealed_run_orders_its_rows_by_the_secret_as_rsb_eval_does(tmp_path, secret):
    bench = _sealed(tmp_path, secret)
    rows = range(500)  # the shipped RSB-Math-4 eval table
    jobs = [Job("RSB-Math-4", "eval", i, POLICY, 400) for i in rows]
    assert len(bench.nonce) == 32 and int(bench.nonce, 16) >= 0  # 128 random bits, hex
    assert bench._row_index == [j.index for j in sealed_order(jobs, Seal.read(secret), bench.nonce)]
    assert sorted(bench._row_index) == list(rows) and bench._row_index[:5] != [0, 1, 2, 3, 4]
    other = tmp_path / "other.txt"
    other.write_bytes(b"another secret of 32 bytes or more, for the test\n")
    assert _sealed(tmp_path, other)._row_index != bench._row_index  # keyed, not public
    pairs = [bench._row_index.index(i) for i in (0, 1)]
    assert abs(pairs[0] - pairs[1]) > 1  # neighbouring rows (A2A's pairs) are not adjacent
    with pytest.raises(RsbError, match=r"^shuffle_seed with a sealed run: its episodes run in"):
        _sealed(tmp_path, secret, shuffle_seed=7)


def test_outcomes_that_cannot_be_written_are_refused_before_the_run(tmp_path, secret):
    # they were written at cleanup: a folder or an unwritable place lost the whole run's
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(RsbError, match=rf"^outcomes: {folder} is a folder; name the JSON "):
        RsbBenchmark("RSB-Math-4", sealed=True, outcomes=str(folder), secret_file=str(secret))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(RsbError, match=rf"^{blocker}: cannot write the outcomes \(outcomes:\)"):
        RsbBenchmark(
            "RSB-Math-4", sealed=True, outcomes=str(blocker / "o.jsonl"), secret_file=str(secret)
        )


def test_the_results_reader_verifies_the_outcomes_and_refuses_an_edited_line(
    tmp_path, secret, capsys
):
    from rsb_mj.integrations.vla_eval_results import main

    bench = _sealed(tmp_path, secret)
    for k in range(3):
        run_one_episode(bench, k, max_steps=2)
    bench.cleanup()
    outcomes = tmp_path / "outcomes.jsonl"
    args = ["--outcomes", str(outcomes), "--secret-file", str(secret)]
    assert main(args) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].startswith("| RSB-Math-4 | 4 | 0/3 = 0.000 [0.000, 0.562] | 0/3 = 0.000 ")
    lines = outcomes.read_text().splitlines()
    forged = json.loads(lines[1]) | {"success": True, "grasped": True, "correct_choice": True}
    forged_line = json.dumps(forged, sort_keys=True)
    outcomes.write_text("\n".join([lines[0], forged_line, lines[2], lines[3]]) + "\n")
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"error: {outcomes}:2: the record's signature does not match: it was edited, moved or "
        "removed lines before it, or comes from another run or secret; the run cannot be "
        "reported\n"
    )
    # a forged line without a newline was counted unsigned (verify checks whole lines)
    outcomes.write_text("\n".join([*lines, json.dumps(forged | {"signature": "x"})]))
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"error: {outcomes}:5: not a signed outcome: the last line has no newline (the "
        "benchmark writes whole lines at once: it was cut off or added by hand)\n"
    )
    outcomes.write_bytes(b"\xff\xfe\x00")  # was a UnicodeDecodeError traceback
    assert main(args) == 2
    assert capsys.readouterr().err.startswith(f"error: {outcomes}:1: not a signed outcome")
    outcomes.write_text("\n".join([lines[0], lines[2], lines[3]]) + "\n")  # a line removed
    assert main(args) == 2
    assert f"{outcomes}:2: the record's signature does not match" in capsys.readouterr().err
    other = tmp_path / "other.txt"
    other.write_bytes(b"another secret of 32 bytes or more, for the test\n")
    other.chmod(0o600)
    assert main(["--outcomes", str(outcomes), "--secret-file", str(other)]) == 2
    assert f"{outcomes}:1: the record's signature does not match" in capsys.readouterr().err
    # the aggregate of a sealed run holds no outcome: the reader says where they are
    (tmp_path / "agg").mkdir()
    aggregate(tmp_path / "agg", "RSB-Math-4", [{"sealed": True}])
    assert main([str(tmp_path / "agg")]) == 2
    assert capsys.readouterr().err.endswith(
        "a sealed run; its outcomes are in the benchmark's outcomes file: --outcomes FILE "
        "--secret-file SECRET\n"
    )


def _run_sealed(tmp_path, secret, name, episodes=3):
    """A sealed benchmark writing ``name`` in ``tmp_path``, after ``episodes`` 2-step
    episodes and its cleanup; the benchmark, the outcomes file and its lines."""
    outcomes = tmp_path / name
    bench = RsbBenchmark(
        "RSB-Math-4", width=32, height=24, sealed=True, outcomes=str(outcomes),
        secret_file=str(secret), convention="rsb", send_wrist_image=False,
    )  # fmt: skip
    for k in range(episodes):
        run_one_episode(bench, k, max_steps=2)
    bench.cleanup()
    return bench, outcomes, outcomes.read_text().splitlines(keepends=True)


def test_two_sealed_runs_of_one_config_draw_their_own_nonce_and_order(tmp_path, secret, capsys):
    first, second = _sealed(tmp_path, secret), _sealed(tmp_path, secret)
    assert first.nonce != second.nonce
    assert first._row_index != second._row_index  # 500 rows: a tie is 1 in 500!
    assert sorted(first._row_index) == sorted(second._row_index) == list(range(500))
    outcomes = tmp_path / "outcomes.jsonl"
    assert capsys.readouterr().err == "".join(
        f"rsb_mj: sealed run, nonce {b.nonce}: its signed outcomes go to {outcomes} at the end; "
        "report them with python -m rsb_mj.integrations.vla_eval_results --outcomes "
        f"{outcomes} --secret-file SECRET --nonce {b.nonce}\n"
        for b in (first, second)
    )
    assert RsbBenchmark("RSB-Math-4", width=32, height=24).nonce == ""  # an ordinary run


def test_the_results_reader_refuses_a_cut_outcomes_file_and_another_runs(tmp_path, secret, capsys):
    from rsb_mj.integrations.vla_eval_results import main

    bench, outcomes, lines = _run_sealed(tmp_path, secret, "outcomes.jsonl")
    closing = json.loads(lines[3])
    assert closing["closing"] == {
        "count": 3,
        "chain": json.loads(lines[2])["signature"],
        "nonce": bench.nonce,
    }
    args = ["--outcomes", str(outcomes), "--secret-file", str(secret)]
    for extra in ([], ["--nonce", bench.nonce]):  # untampered: it verifies, with its nonce too
        assert main(args + extra) == 0
        table = capsys.readouterr().out.splitlines()
        assert table[2].startswith("| RSB-Math-4 | 4 | 0/3 = 0.000 [0.000, 0.562] | 0/3 = ")
    incomplete = (
        "and no closing record after the last (the benchmark writes the outcomes and their "
        "closing record at once, at the end of the run): the file was cut; it cannot be "
        "reported\n"
    )
    for kept, extra in ((3, []), (2, []), (2, ["--nonce", bench.nonce]), (1, [])):
        outcomes.write_text("".join(lines[:kept]))  # cut after line `kept`
        assert main(args + extra) == 2
        said = f"{kept} signed outcome line{'s' * (kept > 1)}"
        assert capsys.readouterr().err == f"error: {outcomes}: incomplete: {said} {incomplete}"
    # another run of the same config and secret: its own file verifies, but not as this run's
    other, theirs, their_lines = _run_sealed(tmp_path, secret, "theirs.jsonl")
    assert main(["--outcomes", str(theirs), "--secret-file", str(secret)]) == 0
    capsys.readouterr()
    outcomes.write_text("".join(their_lines))  # swapped in
    assert main(args) == 0  # without the run's nonce, a file is only checked against itself
    capsys.readouterr()
    assert main([*args, "--nonce", bench.nonce]) == 2
    assert capsys.readouterr().err == (
        f"error: {outcomes}:4: the outcomes of another run (its closing record names nonce "
        f"{other.nonce[:12]}, --nonce {bench.nonce[:12]}); they cannot be reported\n"
    )
    outcomes.write_text("".join(their_lines[:3]))  # swapped in and cut: its chain fails
    assert main([*args, "--nonce", bench.nonce]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: {outcomes}:1: the record's signature does not match"
    )
    outcomes.write_text("".join(lines + their_lines))  # two runs' files as one
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"error: {outcomes}:8: the outcomes of another run (its closing record names nonce "
        f"{other.nonce[:12]}, line 4's {bench.nonce[:12]}); they cannot be reported\n"
    )
    outcomes.write_text("".join(lines))  # restored: it verifies again
    assert main([*args, "--nonce", bench.nonce]) == 0


class GarbageConnection(CapturingConnection):
    """A model server that answers its second observation with a chunk, not one action."""

    async def act(self, obs):
        self.sent.append(("observation", sorted(obs)))
        if len(self.sent) == 3:
            return {"actions": np.zeros((5, 14))}
        return {"actions": obs["state"]}


def test_in_a_sealed_run_an_action_that_is_not_one_is_the_servers_failure(tmp_path, secret):
    import anyio
    from vla_eval.runners.base import EnvStepError
    from vla_eval.runners.sync_runner import SyncEpisodeRunner

    bench = _sealed(tmp_path, secret)
    conn = GarbageConnection()
    task = {**bench.get_tasks()[0], "episode_idx": 0}
    result = anyio.run(lambda: SyncEpisodeRunner().run_episode(bench, task, conn, max_steps=9))
    assert (result["metrics"], result["steps"]) == ({"sealed": True}, 2)  # ended at once
    bench.cleanup()
    line = outcome_lines(tmp_path / "outcomes.jsonl")[0]
    assert (line["policy_fault"], line["success"], line["grasped"]) == (True, False, False)
    ordinary = RsbBenchmark("RSB-Math-4", width=32, height=24)
    conn = GarbageConnection()
    with pytest.raises(  # vla-eval records the episode as an unscored failure
        EnvStepError, match=r"^EnvError: model server action \{'actions': shape \(5, 14\)\}"
    ):
        anyio.run(lambda: SyncEpisodeRunner().run_episode(ordinary, task, conn, max_steps=9))
    ordinary.cleanup()


def test_an_ordinary_run_sends_the_outcome_at_the_episode_end():
    bench = RsbBenchmark("RSB-Math-4", width=32, height=24)
    _, sent = run_one_episode(bench, 2, max_steps=2)
    bench.cleanup()
    kind, payload = sent[-1]
    assert kind == "episode_end"
    assert payload["metrics"] == {
        "success": False,
        "grasped": False,
        "correct_choice": False,
        "choice": "",
        "choices": 4,
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sealed": True}, r"sealed: true needs outcomes: PATH"),
        ({"tables": "t"}, r"sealed: true needs outcomes: PATH"),  # a private draw is sealed
        ({"outcomes": "o.jsonl"}, r"outcomes: PATH is for sealed runs"),
        ({"tables": "t", "sealed": False}, r"sealed: false with tables: a private draw"),
        ({"sealed": True, "outcomes": "o"}, r"sealed: true needs secret_file: PATH, the priv"),
        ({"secret_file": "s.txt"}, r"secret_file: PATH is for sealed runs"),
    ],
)
def test_sealed_params_are_checked(kwargs, message):
    with pytest.raises(RsbError, match=message):
        RsbBenchmark("RSB-Math-4", **kwargs)


class _AnyFloat:
    def __eq__(self, other):
        return isinstance(other, float) and other >= 0

    def __repr__(self):
        return "a float >= 0"


ANY_FLOAT = _AnyFloat()


class NearestToZoneConnection(CapturingConnection):
    """A model server driven by the language-blind ``nearest-to-zone`` policy (it reads the
    benchmark's simulator for its motions, as a test double may): RSB-Math-4 eval row 1's
    nearest candidate is a wrong one. Actions go out in the ``rsb`` convention."""

    def __init__(self, bench):
        super().__init__()
        self.bench = bench
        self.work = []  # WORK at each observation

    async def start_episode(self, payload):
        from rsb_mj.evaluation.rollout import policy_view
        from rsb_mj.policies.spec import make_policy

        await super().start_episode(payload)
        env = self.bench._env
        episode = env.unwrapped.episode
        self.policy = make_policy("nearest-to-zone")
        view = policy_view(env, self.policy, episode, self.bench._instruction)
        self.policy.reset(view, {"state": self.bench._reset_state}, {})

    async def act(self, obs):
        self.sent.append(("observation", sorted(obs)))
        self.work.append(WORK[0])
        return {"actions": self.policy.act({"state": np.asarray(obs["state"], np.float64)})}


#: Calls of the choice rule's update so far: each undecided scorer's work of one step.
WORK = [0]


def test_a_sealed_vla_eval_episode_runs_on_after_a_wrong_grasp_as_a_right_one_would(
    tmp_path, secret, monkeypatch
):
    """Attack 4 on the vla-eval path: what the server sees at ``episode_end`` (``steps``)
    does not tell a wrong first grasp from a right one in a sealed run; it does in an
    ordinary one. Nor does the time between its steps: the scorers working at each step
    are the same either way."""

    import anyio
    from vla_eval.runners.sync_runner import SyncEpisodeRunner

    from rsb_mj.scoring.outcome import FirstGrasp

    update = FirstGrasp.update

    def counted(self, *args):
        WORK[0] += 1
        return update(self, *args)

    monkeypatch.setattr(FirstGrasp, "update", counted)
    works = []

    def run(bench, row, correct=None):
        k = bench._row_index.index(row)
        if correct is not None:  # the answer moved to the candidate the policy picks
            bench._rows[k] = bench._rows[k].rebound(correct=correct)
        conn = NearestToZoneConnection(bench)
        task = {**bench.get_tasks()[0], "episode_idx": k}
        result = anyio.run(
            lambda: SyncEpisodeRunner().run_episode(bench, task, conn, max_steps=400)
        )
        bench.cleanup()
        works.append(np.diff(conn.work).tolist())  # per step, the last one's left out
        return result

    fast = {"convention": "rsb", "send_wrist_image": False}  # one camera to render
    plain = run(RsbBenchmark("RSB-Math-4", width=32, height=24, **fast), 1)
    assert (plain["metrics"]["success"], plain["metrics"]["grasped"]) == (False, True)
    letter = plain["metrics"]["choice"]
    wrong = run(_sealed(tmp_path, secret, **fast), 1)
    outcome = outcome_lines(tmp_path / "outcomes.jsonl")[0]
    assert (outcome["row"], outcome["choice"], outcome["success"]) == (1, letter, False)
    right = run(_sealed(tmp_path, secret, **fast), 1, correct=letter)
    outcome = outcome_lines(tmp_path / "outcomes.jsonl")[0]
    assert (outcome["row"], outcome["choice"], outcome["success"]) == (1, letter, True)
    # the server's episode_end: the same length and metrics either way; unsealed, far shorter
    assert wrong["metrics"] == right["metrics"] == {"sealed": True}
    assert wrong["steps"] == right["steps"] > plain["steps"] + 20
    grasp = plain["steps"]  # where the unsealed episode ended
    assert works[1] == works[2] == [4] * grasp + [1] * (wrong["steps"] - 1 - grasp)


class GarbageAfter(NearestToZoneConnection):
    """``nearest-to-zone``'s server that answers garbage from its ``after``-th request on."""

    def __init__(self, bench, after: int) -> None:
        super().__init__(bench)
        self.after, self.asked = after, 0

    async def act(self, obs):
        self.asked += 1
        if self.asked > self.after:
            return {"actions": np.zeros((5, 14))}
        return await super().act(obs)


def test_a_servers_fault_after_its_wrong_choice_decided_scores_nothing(tmp_path, secret):
    """In the run-on of a sealed wrong choice, a garbage answer ends the episode but leaves
    the decided wrong choice standing (``policy_fault`` false), as ``rsb eval --sealed``
    does; before the choice it is the server's scored failure."""
    import anyio
    from vla_eval.runners.sync_runner import SyncEpisodeRunner

    fast = {"convention": "rsb", "send_wrist_image": False}

    def outcome(after):
        bench = _sealed(tmp_path, secret, **fast)
        conn = GarbageAfter(bench, after)
        task = {**bench.get_tasks()[0], "episode_idx": bench._row_index.index(1)}
        result = anyio.run(
            lambda: SyncEpisodeRunner().run_episode(bench, task, conn, max_steps=400)
        )
        bench.cleanup()
        line = outcome_lines(tmp_path / "outcomes.jsonl")[0]
        return result["steps"], [line[k] for k in ("choice", "success", "policy_fault")]

    plain = RsbBenchmark("RSB-Math-4", width=32, height=24, **fast)
    conn = NearestToZoneConnection(plain)
    task = {**plain.get_tasks()[0], "episode_idx": 1}
    grasp = anyio.run(lambda: SyncEpisodeRunner().run_episode(plain, task, conn, max_steps=400))
    plain.cleanup()
    letter = grasp["metrics"]["choice"]
    assert outcome(grasp["steps"] + 10) == (grasp["steps"] + 11, [letter, False, False])
    assert outcome(3) == (4, ["", False, True])
