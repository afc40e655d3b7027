"""rsb eval --ray: the same records as a local run, resume, a killed worker retried, and a
local cluster that never leaves 127.0.0.1.

The cluster tests are slow (starting Ray takes 20-30 s on a loaded 2-core machine). Each
starts its own cluster in a fresh temporary folder and leaves no Ray process behind.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.pool.ray_cluster import (
    LOCAL_ENV,
    RayCluster,
    _is_loopback,
    failure_message,
    reap_stale_clusters,
)
from rsb_mj.evaluation.run_folder import RECORDS_FILE

ROOT = Path(__file__).resolve().parents[1]
SUITES = ("--suite", "RSB-Math-4", "--suite", "RSB-General-10")
#: Names of Ray's own processes in ``ss -p`` output.
RAY_PROCESS = re.compile(r'users:\(\("(gcs_server|raylet|ray::[^"]*)"')


def _eval(out: Path, *extra: str) -> list[str]:
    return [
        "eval", *SUITES, "--policy", "expert", "--policy", "random-grasp", "--out", str(out),
        "--no-progress", *extra,
    ]  # fmt: skip


def _lines(out: Path) -> list[str]:
    """The records of a run without their timing field, in a fixed order."""
    text = (out / RECORDS_FILE).read_text()
    return sorted(
        re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', line) for line in text.splitlines()
    )


class SocketWatch:
    """Samples ``ss -tunap`` while a run goes on; keeps the lines of Ray's processes."""

    def __init__(self) -> None:
        assert shutil.which("ss"), "the loopback check needs ss (iproute2)"
        self.lines: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            text = subprocess.run(["ss", "-tunapH"], capture_output=True, text=True).stdout
            self.lines += [line for line in text.splitlines() if RAY_PROCESS.search(line)]
            time.sleep(0.3)

    def __enter__(self) -> SocketWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _session_folders() -> set[str]:
    return {d for d in os.listdir(tempfile.gettempdir()) if d.startswith("rsb_ray_")}


def _ray_processes(marker: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def test_an_address_that_is_a_task_file_is_refused():
    with pytest.raises(EvalError, match=r"^--ray tasks/x\.bddl: an address, not a task file"):
        RayCluster("tasks/x.bddl")


def test_loopback_addresses_and_failure_messages():
    assert _is_loopback("127.0.0.1:6379") and _is_loopback("ray://localhost:10001")
    assert not _is_loopback("10.0.0.5:6379") and not _is_loopback("auto")
    assert failure_message(RuntimeError("first\nsecond")) == "RuntimeError: first"


def test_without_ray_installed_the_error_says_how_to_get_it(monkeypatch, tmp_path, capsys):
    from rsb_mj.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    args = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--episodes", "1", "--max-steps",
            "2", "--out", str(tmp_path / "run"), "--no-progress", "--ray"]  # fmt: skip
    assert main(args) == 2
    assert capsys.readouterr().err == (
        'rsb eval: error: --ray needs Ray, an optional dependency: pip install "rsb_mj[ray]"\n'
    )


def test_what_a_killed_driver_left_is_stopped_and_removed(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale, live = tmp_path / "rsb_ray_a", tmp_path / "rsb_ray_b"
    (stale / f"session_2026-11-30_16-18-42_971194_{dead.pid}").mkdir(parents=True)
    (live / f"session_2026-11-30_16-18-42_971194_{os.getpid()}").mkdir(parents=True)
    (tmp_path / "rsb_ray_c").mkdir()  # a cluster starting: no session yet
    agent = subprocess.Popen(  # an agent left behind: its command line names the folder
        [sys.executable, "-c", "import time; time.sleep(60)", str(stale / "logs")]
    )
    cmdline = Path(f"/proc/{agent.pid}/cmdline")
    deadline = time.monotonic() + 10
    while str(stale).encode() not in cmdline.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)  # until the child has exec'd its own command line
    try:
        assert reap_stale_clusters(str(tmp_path)) == [str(stale)]
        assert agent.wait(timeout=10) == -signal.SIGKILL
    finally:
        if agent.poll() is None:
            agent.kill()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rsb_ray_b", "rsb_ray_c"]


@pytest.mark.slow
def test_local_cluster_same_records_as_a_local_run_on_loopback_only(tmp_path, monkeypatch):
    from rsb_mj.cli import main

    for name, value in LOCAL_ENV.items():
        monkeypatch.setenv(name, value)
    pytest.importorskip("ray", reason="the ray extra is not installed")
    before = _session_folders()
    local, ray = tmp_path / "local", tmp_path / "ray"
    assert main(_eval(local, "--episodes", "3", "--workers", "1")) == 0
    with SocketWatch() as watch:
        assert main(_eval(ray, "--episodes", "2", "--workers", "2", "--ray")) == 0
    assert watch.lines, "no Ray socket seen"
    assert [line for line in watch.lines if "127.0.0.1" not in line] == []
    # resume: the first two episodes of each pair stay, the third runs
    assert main(_eval(ray, "--episodes", "3", "--workers", "2", "--ray")) == 0
    assert _lines(ray) == _lines(local)
    assert len(_lines(ray)) == 12
    assert _session_folders() - before == set()  # the local clusters' folders are removed


@pytest.mark.slow
def test_running_cluster_two_workers_retry_a_killed_worker(tmp_path, monkeypatch):
    """A head started with ``ray start`` on 127.0.0.1 with two worker CPUs; one worker
    process dies in the middle of an episode and Ray reruns the task."""
    from rsb_mj.cli import main

    for name, value in LOCAL_ENV.items():
        monkeypatch.setenv(name, value)
    pytest.importorskip("ray", reason="the ray extra is not installed")
    tests = str(ROOT / "tests")
    monkeypatch.syspath_prepend(tests)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = tempfile.mkdtemp(prefix="rsbrt_")
    flag = tmp_path / "crash"
    flag.touch()
    monkeypatch.setenv("RSB_TEST_FLAG", str(flag))  # workers get the head's environment
    env = {**os.environ, **LOCAL_ENV, "PYTHONPATH": os.pathsep.join((str(ROOT), tests))}
    head = subprocess.Popen(
        [sys.executable, "-c", "from ray.scripts.scripts import main; main()", "start",
         "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
         f"--temp-dir={temp}"],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        crash = "inprocess:evaluation.user_policies:crash_once_if_flagged"  # kills its worker
        args = ["eval", "--suite", "RSB-Math-4", "--policy", crash, "--policy", "random-grasp",
                "--max-steps", "60", "--no-progress"]  # fmt: skip
        deadline = time.monotonic() + 120
        ray_out = tmp_path / "ray"
        address = f"--ray=127.0.0.1:{port}"
        with SocketWatch() as watch:
            while True:  # the head needs some seconds before it takes drivers
                code = main([*args, "--episodes", "2", "--out", str(ray_out), address])
                if code == 0 or time.monotonic() > deadline or head.poll() is not None:
                    break
                time.sleep(2)
            assert code == 0, head.stderr.read().decode() if head.poll() is not None else code
            assert not flag.exists()  # a worker died: the policy removed the flag as it crashed
            assert main([*args, "--episodes", "3", "--out", str(ray_out), address]) == 0
        assert watch.lines, "no Ray socket seen"
        assert [line for line in watch.lines if "127.0.0.1" not in line] == []
        local = tmp_path / "local"
        assert main([*args, "--episodes", "3", "--out", str(local), "--workers", "1"]) == 0
        assert _lines(ray_out) == _lines(local)
        assert len(_lines(ray_out)) == 6 and '"termination": "error"' not in "".join(_lines(local))
    finally:
        with_pids = _ray_processes(temp)
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(timeout=30)
        head.stderr.close()
        deadline = time.monotonic() + 30
        while _ray_processes(temp) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = _ray_processes(temp)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
    assert with_pids, "no Ray process ran from the test's folder"
    assert left == []


@pytest.mark.slow
def test_demos_on_a_local_cluster_are_the_same_files(tmp_path, monkeypatch):
    from rsb_mj.datasets.demos import write_demos

    for name, value in LOCAL_ENV.items():
        monkeypatch.setenv(name, value)
    pytest.importorskip("ray", reason="the ray extra is not installed")
    options = {"cameras": ("head",), "width": 64, "height": 48, "progress": False}
    write_demos("RSB-Math-4", "train", 3, tmp_path / "local", **options)
    res = write_demos("RSB-Math-4", "train", 3, tmp_path / "ray", jobs=2, ray="", **options)
    assert (res["written"], res["failed"]) == (3, 0)
    names = sorted(p.name for p in (tmp_path / "local").glob("*.hdf5"))
    assert names == sorted(p.name for p in (tmp_path / "ray").glob("*.hdf5"))
    assert len(names) == 3
    for name in names:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


@pytest.mark.slow
def test_goal_tasks_on_a_local_cluster_give_the_records_of_a_local_run(tmp_path, monkeypatch):
    """A goal task file (VLA-Arena's apple on the plate) as Ray tasks: the expert's and
    noop's records are those of a local run."""
    from rsb_mj.cli import main

    for name, value in LOCAL_ENV.items():
        monkeypatch.setenv(name, value)
    pytest.importorskip("ray", reason="the ray extra is not installed")
    apple = (
        ROOT
        / "tests/data/bddl_suites/vla_arena/robustness_static_distractors/level_0"
        / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
    )
    common = ["eval", str(apple), "--policy", "expert", "--policy", "noop", "--episodes", "2",
              "--max-steps", "200", "--no-progress"]  # fmt: skip
    local, ray = tmp_path / "local", tmp_path / "ray"
    assert main([*common, "--out", str(local)]) == 0
    assert main([*common, "--out", str(ray), "--workers", "2", "--ray"]) == 0
    assert _lines(ray) == _lines(local) and len(_lines(ray)) == 4
