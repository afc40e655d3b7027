"""openpi conformance without training: a perfect imitator of an exported dataset, behind
openpi's own transforms and server, evaluated by ``rsb eval`` with default flags.

10 expert demonstrations (``rsb demos``), exported as openpi reads them (``rsb export-lerobot
--lerobot-version 2.1``); ``openpi_imitator.py`` runs in the openpi venv
(``tools/openpi_venv.sh``; ``.ci/run`` builds it and sets ``RSB_OPENPI_PYTHON``) with
openpi's source files (``tests/third_party/openpi``): the dataset through openpi's ALOHA data
config (``LeRobotAlohaDataConfig``, default ``adapt_to_pi=True``, delta joint actions, norm
stats, model transforms) gives the model-space targets; the imitator returns those of the
nearest training frame; openpi's inverse output transforms (``Unnormalize``,
``AbsoluteActions``, ``AlohaOutputs``) and its ``WebsocketPolicyServer`` answer the client.
The client, with its defaults (``openpi:HOST:PORT``), must reproduce the demonstrations:
every episode a success on the demo's own last step, every executed action within 1e-4 of
the recorded one (joints [rad] and grippers).

Without ``RSB_OPENPI_PYTHON`` the tests that need the venv are skipped, except in CI (``CI``
set), where that is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the LeRobot export needs the lerobot-export extra")
import pyarrow.parquet as pq

from rsb_mj.cli import main
from rsb_mj.datasets.demo_file import episode_filename, read_demo, write_demo
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.worker import close_all, run_job
from rsb_mj.policies import OpenPiPolicy
from rsb_mj.policies.aloha_convention import AlohaConvention
from rsb_mj.tables.families import load_table

from .openpi_server import free_port

ROOT = Path(__file__).resolve().parents[2]
IMITATOR = Path(__file__).with_name("openpi_imitator.py")
PYTHON = os.environ.get("RSB_OPENPI_PYTHON", "")
EPISODES = 10
#: Largest difference [rad, or gripper units] of an executed action from the recorded one.
TOLERANCE = 1e-4
#: Seconds the imitator may take to read the dataset and start serving.
START_S = 600.0

needs_venv = pytest.mark.skipif(
    not PYTHON and not os.environ.get("CI"),
    reason="needs the openpi venv: RSB_OPENPI_PYTHON=$(tools/openpi_venv.sh) (.ci/run sets it)",
)


def _venv_python() -> str:
    if not PYTHON:
        pytest.fail("CI is set but RSB_OPENPI_PYTHON is not: .ci/run builds the openpi venv")
    return PYTHON


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("openpi")
    demos = ["demos", "RSB-Math-4", "--split", "train", "-n", str(EPISODES)]
    assert main([*demos, "-o", str(root / "demos"), "--no-progress"]) == 0
    export = ["export-lerobot", str(root / "demos"), "-o", str(root / "ds")]
    assert main([*export, "--lerobot-version", "2.1"]) == 0
    return root


@pytest.fixture(scope="module")
def pi05_check(exported: Path):
    """``openpi_imitator.py --model pi05 --check``, started at once: it runs while the pi0
    server starts and the episodes roll out."""
    argv = [_venv_python(), str(IMITATOR), str(exported / "ds"), "0", "--model", "pi05"]
    with (exported / "pi05.log").open("w") as log:
        proc = subprocess.Popen([*argv, "--check"], stdout=subprocess.PIPE, stderr=log, text=True)
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


@contextlib.contextmanager
def _serving(dataset: Path, log_path: Path) -> Iterator[int]:
    """The imitator of ``dataset`` behind openpi's server on 127.0.0.1 (its port), up once
    openpi's ``/healthz`` answers; stopped at exit."""
    python, port = _venv_python(), free_port()
    log = log_path.open("w")
    proc = subprocess.Popen(
        [python, str(IMITATOR), str(dataset), str(port)], stdout=log, stderr=log
    )
    deadline = time.monotonic() + START_S
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the imitator exited {proc.returncode}:\n" + _tail(log_path))
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the imitator did not serve within {START_S:g} s:\n" + _tail(log_path))
            time.sleep(1.0)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def server(exported: Path, pi05_check):
    """The imitator of the 10 exported demonstrations (its port)."""
    with _serving(exported / "ds", exported / "imitator.log") as port:
        yield port


@pytest.fixture(scope="module")
def half_open(exported: Path):
    """Demonstration 0 with its grippers swept through every opening (the expert only opens
    and closes them fully), exported, and its imitator: (demo, port)."""
    demo = read_demo(exported / "demos" / "episode_000000.hdf5", images=True)
    states, actions = np.array(demo.states), np.array(demo.actions)
    sweep = 0.5 - 0.5 * np.cos(np.linspace(0.0, 3 * np.pi, len(actions)))
    actions[:, 6], actions[:, 13] = sweep, 1.0 - sweep
    states[1:, [6, 13]] = actions[:-1, [6, 13]]  # the fingers follow one step late
    folder = exported / "half_open"
    folder.mkdir()
    write_demo(
        folder / episode_filename(0),
        episode=load_table("RSB-Math-4", "train")[0],
        instruction=demo.attrs["instruction"],
        states=states,
        actions=actions,
        images={cam: list(frames) for cam, frames in demo.images.items()},
        attrs={"success": True, "grasped": True, "prompt": demo.attrs["prompt"]},
    )
    export = ["export-lerobot", str(folder), "-o", str(folder / "ds")]
    assert main([*export, "--lerobot-version", "2.1"]) == 0
    with _serving(folder / "ds", folder / "imitator.log") as port:
        yield read_demo(folder / episode_filename(0), images=True), port


def _tail(log: Path) -> str:
    return log.read_text()[-3000:]


def _recorded(root: Path, index: int):
    return read_demo(root / "demos" / f"episode_{index:06d}.hdf5", images=False)


@needs_venv
def test_the_export_carries_alohas_convention_and_names_it(exported):
    info = json.loads((exported / "ds/meta/info.json").read_text())
    assert info["codebase_version"] == "v2.1"
    assert info["rsb_convention"] == AlohaConvention().metadata()
    assert info["rsb_convention"]["name"] == "aloha"
    table = pq.read_table(exported / "ds/data/chunk-000/episode_000003.parquet")
    demo = _recorded(exported, 3)
    convention = AlohaConvention()
    np.testing.assert_array_equal(
        np.array(table["action"].to_pylist(), np.float32),
        convention.actions_to_server(demo.actions).astype(np.float32),
    )
    np.testing.assert_array_equal(
        np.array(table["observation.state"].to_pylist(), np.float32),
        convention.state_to_server(demo.states).astype(np.float32),
    )


@needs_venv
def test_rsb_eval_with_default_flags_reproduces_the_expert(exported, server, capsys):
    out = exported / "run"
    code = main(["eval", "--suite", "RSB-Math-4", "--split", "train", "--episodes",
                 str(EPISODES), "--policy", f"openpi:127.0.0.1:{server}", "--out", str(out),
                 "--no-progress"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    records = sorted(read_records(out / RECORDS_FILE), key=lambda r: r.index)
    assert [r.index for r in records] == list(range(EPISODES))
    assert [r.error for r in records] == [None] * EPISODES
    assert all(_recorded(exported, r.index).attrs["success"] for r in records)
    assert [r.success for r in records] == [True] * EPISODES  # TSR 100%
    # each episode ends where its demonstration ended: on the same step
    assert [r.steps for r in records] == [len(_recorded(exported, i).actions) for i in range(10)]
    # the printed table: n 10, no error, GSR 100, TSR 100 [Wilson 72, 100]
    printed = capsys.readouterr().out
    assert re.search(r"^openpi:\S+ +RSB-Math-4 +10 +0 +100\.0 +100\.0 \[72,100\] ", printed, re.M)


@needs_venv
def test_every_executed_action_equals_the_recorded_one(exported, server):
    """The same rollout as ``rsb eval``'s workers (``run_job``), the actions the env receives
    collected; against the HDF5 demonstrations' actions, step by step."""
    spec = f"openpi:127.0.0.1:{server}"
    worst: dict[int, tuple[float, float]] = {}
    try:
        for index in range(EPISODES):
            executed: list[np.ndarray] = []
            job = Job("RSB-Math-4", "train", index, spec, max_steps=400)
            record = run_job(
                job, on_step=lambda obs, action, rows=executed: rows.append(action.copy())
            )
            recorded = np.asarray(_recorded(exported, index).actions)
            assert record.error is None and record.success, (index, record.error)
            assert len(executed) == len(recorded), index
            err = np.abs(np.asarray(executed) - recorded)
            worst[index] = (
                float(np.delete(err, [6, 13], axis=1).max()),
                float(err[:, [6, 13]].max()),
            )
    finally:
        close_all()
    joints, grippers = max(j for j, _ in worst.values()), max(g for _, g in worst.values())
    assert joints < TOLERANCE and grippers < TOLERANCE, worst


@needs_venv
def test_every_gripper_opening_comes_back_through_openpis_transforms(half_open):
    """The issue's trap: with rsb_mj's raw gripper scale in the export, the default client
    turned a fine-tuned model's 0.3 / 0.6 into 0.237 / 0.668. Here each frame's own
    observation goes to the imitator through the default client; the chunk it executes is
    the recorded one, grippers at every opening included."""
    demo, port = half_open
    actions = np.asarray(demo.actions)
    policy = OpenPiPolicy.from_spec(f"openpi:127.0.0.1:{port}")
    worst = 0.0
    try:
        for t in range(0, len(actions), 5):
            obs = {
                "state": np.asarray(demo.states[t]),
                "images": {cam: frames[t] for cam, frames in demo.images.items()},
            }
            policy.reset(None, obs, {"instruction": demo.attrs["prompt"]})
            rows = policy.act(obs)
            expected = actions[np.minimum(np.arange(t, t + len(rows)), len(actions) - 1)]
            worst = max(worst, float(np.abs(rows - expected).max()))
    finally:
        policy.close()
    assert len(rows) == 10
    assert np.ptp(actions[:, 6]) == pytest.approx(1.0) and worst < TOLERANCE, worst


@needs_venv
def test_pi05s_quantile_normalization_round_trips_every_frame(exported, pi05_check):
    """pi0.5's data config (quantile norm stats, the state in the prompt): every training
    frame's own observation comes back as its recorded action chunk, through openpi's
    transforms, without the environment (``openpi_imitator.py --check``)."""
    out, _ = pi05_check.communicate(timeout=START_S)
    assert pi05_check.returncode == 0, (exported / "pi05.log").read_text()[-3000:]
    worst = json.loads(out.strip().splitlines()[-1])
    assert worst["mismatched"] == 0, worst
    assert worst["joints"] < 1e-6 and worst["grippers"] < 1e-6, worst


def test_the_venv_tool_explains_itself_and_refuses_bad_usage():
    tool = ROOT / "tools" / "openpi_venv.sh"
    shown = subprocess.run(["bash", str(tool), "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.startswith("Build (or reuse) the venv")
    bad = subprocess.run(["bash", str(tool), "a", "b"], capture_output=True, text=True)
    assert (bad.returncode, bad.stderr) == (2, "usage: tools/openpi_venv.sh [VENV]\n")


def test_the_third_party_files_are_openpis_with_its_licence():
    third = ROOT / "tests" / "third_party" / "openpi"
    licence = (third / "LICENSE").read_text().split()
    assert licence[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    assert "15a9616a00943ada6c20a0f158e3adb39df2ccac" in (third / "README.md").read_text()
    copied = sorted(str(p.relative_to(third)) for p in (third / "src").rglob("*.py"))
    assert len(copied) == 14 and "src/openpi/policies/aloha_policy.py" in copied, copied
