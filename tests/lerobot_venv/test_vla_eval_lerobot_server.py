"""vla-eval conformance: vla-eval's own LeRobot model server (``vla_eval/model_servers/
lerobot.py``, launched unchanged by ``rsb_mj.integrations.vla_eval_lerobot``) serves the
``lerobot-train`` ACT checkpoint, and ``vla-eval run`` drives the shipped RSB-Math-4 config
against it in sync and live mode with ``--record-video``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip(
    "lerobot",
    reason="needs lerobot and torch: the lerobot venv (tools/lerobot_venv.sh), where "
    ".ci/run runs tests/lerobot_venv",
)

import av

from rsb_mj.integrations.vla_eval import config_path
from rsb_mj.integrations.vla_eval_lerobot import SERVER_CONFIG, alias_lerobot_policy_names
from rsb_mj.integrations.vla_eval_results import summarize_aggregate

VLA_EVAL = str(Path(sys.executable).with_name("vla-eval"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, proc: subprocess.Popen, log: Path, timeout: float = 300.0) -> None:
    """Until the server answers ``GET /health`` (its __init__ loaded the checkpoint)."""
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the model server exited: {log.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(1.0)
    raise TimeoutError(f"model server not healthy on {port} after {timeout} s")


def test_lerobot_04_gets_the_two_names_vla_eval_imports():
    import lerobot
    import lerobot.policies

    assert lerobot.__version__.startswith("0.4")
    assert sorted(alias_lerobot_policy_names()) in (
        ["get_policy_class", "make_pre_post_processors"],
        [],  # already aliased by an earlier test in this process
    )
    from lerobot.policies import get_policy_class, make_pre_post_processors  # noqa: F401

    assert alias_lerobot_policy_names() == []


@pytest.fixture(scope="module")
def server(act_run, tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rsb_mj.integrations.vla_eval_lerobot",
             "--config", str(SERVER_CONFIG), "--args.checkpoint", str(act_run.checkpoint),
             "--args.device", "cpu", "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=err, text=True,
        )  # fmt: skip
        try:
            wait_healthy(port, proc, log)
            yield port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)


@pytest.mark.parametrize("mode", ["sync", "live"])
def test_vla_eval_runs_the_shipped_config_against_its_lerobot_server(server, mode, tmp_path):
    port = server
    out = tmp_path / "results"
    fields = ["episodes_per_task=1", "max_steps=30"]
    if mode == "live":
        fields += ["mode=live", "hz=20"]
    run = subprocess.run(
        [VLA_EVAL, "run", "--no-docker", "-c", str(config_path("RSB-Math-4")),
         "--server-url", f"ws://127.0.0.1:{port}", "--output-dir", str(out), "--record-video",
         *(a for f in fields for a in ("--benchmark-field", f))],
        capture_output=True, text=True, timeout=900, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout + run.stderr
    assert "Auto-configured from model server: send_state=True" in text
    assert "Auto-configured from model server: send_wrist_image=True" in text
    aggregate = out / "RSB-Math-4_aggregate.json"
    body = json.loads(aggregate.read_text())
    assert body["mode"] == mode and body["num_errors"] == 0
    (episode,) = body["tasks"][0]["episodes"]
    assert episode["steps"] == 30 and set(episode["metrics"]) == {
        "success", "grasped", "correct_choice", "choice", "choices"
    }  # fmt: skip
    row = summarize_aggregate(aggregate)
    assert (row.episodes, row.errors, row.choices) == (1, 0, 4)
    (video,) = (out / "episodes" / "RSB-Math-4").glob("task0000_ep0000_*.mp4")
    with av.open(str(video)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    assert len(frames) == 31  # the reset frame and one per step
    assert frames[0].shape == (240, 320, 3)
