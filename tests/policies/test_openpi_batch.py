"""Batched openpi requests: a server that advertises ``max_batch_size`` gets the waiting
observations as one ``{"batch": [...]}`` request; one that does not gets one request each;
an item the server fails fails its episode alone; ``rsb eval --batch`` against such a
server gives the records of an unbatched run (real MuJoCo, three cameras)."""

from __future__ import annotations

import dataclasses
import json
import traceback

import numpy as np
import pytest

from rsb_mj.env.views import PolicyEnv
from rsb_mj.errors import InfraError, PolicyError
from rsb_mj.policies.openpi import BATCH_KEY, OpenPiPolicy
from rsb_mj.policies.wire import packb, unpackb

from .openpi_server import FakeOpenPiServer

CAMS = ("head", "left_wrist", "right_wrist")


class BatchingServer(FakeOpenPiServer):
    """The ``hold`` server with batched requests: metadata ``max_batch_size``; an item whose
    prompt is ``"boom"`` is answered ``{"error": ...}``, a request holding ``"crash"`` gets
    a traceback. ``sizes`` is the number of observations of each request."""

    def __init__(self, max_batch: int = 4, **kw) -> None:
        super().__init__("hold", metadata={"policy": "hold", BATCH_KEY: max_batch}, **kw)
        self.sizes: list[int] = []

    def _handler(self, conn) -> None:
        self.connections += 1
        self._open.append(conn)
        conn.send(packb(self.metadata))
        for message in conn:
            request = unpackb(message)
            items = request.get("batch", [request])
            self.sizes.append(len(items))
            self.seen.extend(items)
            try:
                if any(o["prompt"] == "crash" for o in items):
                    raise RuntimeError("the whole batch fell over")
            except RuntimeError:
                conn.send(traceback.format_exc())
                conn.close(1011)
                return
            answers = [
                {"error": "ValueError: prompt too long"}
                if o["prompt"] == "boom"
                else {"actions": self._actions(o), "text": f"said {o['prompt']}"}
                for o in items
            ]
            conn.send(packb({"batch": answers} if "batch" in request else answers[0]))


def _obs(k: float) -> dict:
    images = {c: np.full((24, 32, 3), 9, np.uint8) for c in CAMS}
    return {"state": np.full(14, k), "images": images}


def _env() -> PolicyEnv:
    return PolicyEnv(None, None, ("a", "b"), 20.0, "")


def _policy(port: int) -> OpenPiPolicy:
    return OpenPiPolicy("127.0.0.1", port, horizon=2, convention="rsb", image_size=16)


@pytest.fixture
def batching():
    server = BatchingServer()
    server.start()
    yield server
    server.stop()


def test_an_advertising_server_gets_one_request_for_the_waiting_observations(batching):
    policy = _policy(batching.port)
    for slot, prompt in ((0, "zero"), (3, "three"), (5, "five")):
        policy.reset_slot(slot, _env(), _obs(0.0), {"instruction": prompt})
    assert policy.batched and policy.batch_size == 4
    out = policy.act_batch([_obs(0.1), _obs(0.2), _obs(0.3)], [5, 0, 3])
    assert batching.sizes == [3]
    assert [o["prompt"] for o in batching.seen] == ["five", "zero", "three"]
    assert batching.seen[0]["images"]["cam_high"].shape == (3, 16, 16)  # CHW, resized
    for chunk, k in zip(out, (0.1, 0.2, 0.3), strict=True):
        assert chunk.shape == (2, 14) and np.allclose(chunk, k)
    assert [policy.slot_text(s) for s in (0, 3, 5)] == ["said zero", "said three", "said five"]
    policy.act_batch([_obs(0.4)], [3])  # one observation: a plain request
    assert batching.sizes == [3, 1] and "batch" not in batching.seen[-1]
    policy.close()


def test_an_item_the_server_fails_fails_alone(batching):
    policy = _policy(batching.port)
    for slot, prompt in ((0, "fine"), (1, "boom")):
        policy.reset_slot(slot, _env(), _obs(0.0), {"instruction": prompt})
    ok, failed = policy.act_batch([_obs(0.5), _obs(0.5)], [0, 1])
    assert np.allclose(ok, 0.5)
    assert isinstance(failed, PolicyError) and str(failed) == (
        f"openpi server ws://127.0.0.1:{batching.port}: the policy failed this observation: "
        "ValueError: prompt too long"
    )
    policy.reset_slot(1, _env(), _obs(0.0), {"instruction": "crash"})
    with pytest.raises(PolicyError, match=r"(?s)the policy raised:\nTraceback .*whole batch fell"):
        policy.act_batch([_obs(0.5), _obs(0.5)], [0, 1])  # the call fails: every item
    policy.close()


def test_a_server_without_max_batch_size_gets_one_request_per_observation():
    server = FakeOpenPiServer("hold")
    server.start()
    try:
        policy = _policy(server.port)
        for slot in (0, 1, 2):
            policy.reset_slot(slot, _env(), _obs(0.0), {"instruction": f"p{slot}"})
        assert policy.batched and policy.batch_size == 1
        out = policy.act_batch([_obs(0.1), _obs(0.2), _obs(0.3)], [0, 1, 2])
        assert [o["prompt"] for o in server.seen] == ["p0", "p1", "p2"]  # three requests
        assert [float(c[0, 0]) for c in out] == pytest.approx([0.1, 0.2, 0.3])
        policy.close()
    finally:
        server.stop()


@pytest.mark.parametrize("size", ["16", 0, True, 2.5])
def test_unusable_max_batch_size_is_refused(size):
    server = FakeOpenPiServer("hold", metadata={BATCH_KEY: size})
    server.start()
    try:
        with pytest.raises(InfraError, match=r"metadata max_batch_size must be a whole number"):
            _policy(server.port).reset_slot(0, _env(), _obs(0.0), {"instruction": "x"})
    finally:
        server.stop()


def test_rsb_eval_batch_against_a_batching_server_gives_the_unbatched_records(tmp_path):
    """Real RsbEnv, three cameras at 64x48, the reset-pose move served per slot: --batch 3
    sends the three episodes' observations together and records the same bytes."""
    from rsb_mj.evaluation.runner import EvalConfig, run_eval
    from rsb_mj.evaluation.worker import SettingsEnvFactory

    server = BatchingServer(
        max_batch=3, horizon=1, text=None
    )  # the reset pose: 0.2 s move + 0.5 s hold = 14 steps at 20 Hz, served by the client
    server.metadata = {**server.metadata, "reset_pose": [0.0, -0.96, 1.16, 0.0, -0.3, 0.0]}
    server.start()
    spec = f"openpi:127.0.0.1:{server.port}:1,convention=rsb,reset_move_s=0.2"
    factory = SettingsEnvFactory(width=64, height=48)
    try:
        runs = {}
        for batch in (1, 3):
            cfg = EvalConfig(
                suites=("RSB-Math-4",), policies=(spec,), episodes=3, out=tmp_path / f"b{batch}",
                workers=1, max_steps=17, progress=False, batch=batch,
            )  # fmt: skip
            sizes_before = len(server.sizes)
            records = run_eval(cfg, env_factory=factory)
            runs[batch] = (records, server.sizes[sizes_before:])
    finally:
        server.stop()
    lines = {
        b: [json.dumps({**dataclasses.asdict(r), "wall_s": 0}, sort_keys=True) for r in recs]
        for b, (recs, _) in runs.items()
    }
    assert lines[3] == lines[1]
    assert [(r.termination, r.steps) for r in runs[1][0]] == [("step_limit", 17)] * 3
    assert runs[1][1] == [1] * 9  # 17 steps - 14 served by the client = 3 queries each
    sizes = runs[3][1]  # the three episodes asked together (later in halves when stepping
    assert sizes[0] == 3 and sum(sizes) == 9 and len(sizes) < 9  # hides the latency)
