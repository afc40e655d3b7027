"""Fault injection at the policy level: every fault of an openpi server gives one exact
exception class and message, and nothing hangs.

Each call runs in a thread that must finish within a generous bound (a hang check, not a
benchmark); short timeouts and backoffs keep the file fast.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from rsb_mj.errors import InfraError, PolicyError
from rsb_mj.policies import OpenPiPolicy
from rsb_mj.policies.openpi_conn import OpenPiConnection

from .openpi_server import HORIZON, ClosingTcpServer, FakeOpenPiServer, PlainTcpServer, free_port

#: A call that has not returned after this many seconds is hung.
HANG_S = 30.0
FAST = {"connect_timeout_s": 0.5, "request_timeout_s": 0.5, "retries": 1, "backoff_s": 0.05}


def bounded(fn: Callable[[], Any], hang_s: float = HANG_S) -> tuple[Any, BaseException | None]:
    """Run ``fn`` in a thread; fail the test if it outlives ``hang_s``; return its result
    and the exception it raised (or None)."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the test
            out["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(hang_s)
    assert not thread.is_alive(), f"call still running after {hang_s} s: hung"
    return out.get("value"), out.get("error")


def _obs() -> dict[str, Any]:
    images = {c: np.zeros((48, 64, 3), np.uint8) for c in ("head", "left_wrist", "right_wrist")}
    return {"state": np.full(14, 0.5), "images": images}


INFO = {"instruction": "pick the block of 2 + 2", "candidates": ("a", "b")}


@pytest.fixture
def serve():
    started: list[Any] = []

    def start(mode: str, **kw: Any) -> FakeOpenPiServer:
        srv = FakeOpenPiServer(mode, **kw)
        srv.start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


def _episode(policy: OpenPiPolicy, steps: int = 1) -> None:
    policy.reset(None, _obs(), INFO)
    for _ in range(steps):
        policy.act(_obs())


def _raises(fn: Callable[[], Any], cls: type[BaseException], pattern: str) -> BaseException:
    _, err = bounded(fn)
    assert type(err) is cls, f"expected {cls.__name__}, got {err!r}"
    assert re.fullmatch(pattern, str(err), flags=re.S), str(err)
    return err


def test_refused_preflight_with_default_limits_fails_within_its_timeout():
    port = free_port()
    policy = OpenPiPolicy("127.0.0.1", port)
    start = time.monotonic()
    _raises(
        lambda: policy.preflight(10.0),
        InfraError,
        rf"openpi server ws://127.0.0.1:{port}: cannot connect after 4 attempt\(s\) in "
        r"\d+\.\d s \(connect timeout 5 s, request timeout 30 s, 3 retries, total limit 10 s\); "
        r"last: connection refused or reset \(Connection refused\)",
    )
    assert time.monotonic() - start < 10.0  # the run's promise: a dead server fails in < 10 s


def test_refused_at_reset_after_retries():
    port = free_port()
    policy = OpenPiPolicy("127.0.0.1", port, **FAST)
    _raises(
        lambda: _episode(policy),
        InfraError,
        rf"openpi server ws://127.0.0.1:{port}: cannot connect after 2 attempt\(s\) in "
        r"\d+\.\d s \(connect timeout 0\.5 s, request timeout 0\.5 s, 1 retries\); "
        r"last: connection refused or reset \(Connection refused\)",
    )


def test_accepts_and_never_answers_times_out_once_without_retrying(serve):
    srv = serve("silent")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: no answer within the request timeout "
        r"\(0\.5 s\)",
    )
    assert len(srv.seen) == 1  # a slow server is not queried again


def test_never_sends_metadata(serve):
    srv = serve("no_metadata")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: policy.preflight(10.0),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: sent no metadata within the connect "
        r"timeout \(0\.5 s\) after the handshake",
    )


def test_closes_mid_episode_retries_then_fails(serve):
    srv = serve("close", answer_first=2)
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy, steps=3),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: query failed after 2 attempt\(s\) in "
        r"\d+\.\d s \(connect timeout 0\.5 s, request timeout 0\.5 s, 1 retries\); last: the "
        r"server closed the connection before answering \(received 1000 \(OK\); then sent "
        r"1000 \(OK\)\)",
    )
    assert srv.connections == 2 and len(srv.seen) == 4  # 2 answered, then 2 closed attempts


def test_a_garbage_answer_is_the_servers_own_fault(serve):
    srv = serve("garbage")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy),
        PolicyError,
        rf"openpi server ws://127.0.0.1:{srv.port}: answered with 16 bytes that are not "
        r"openpi msgpack \(.+; first bytes c1 c1 20 6e .*\)",
    )


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("not_a_map", "answer must be a map with 'actions', got list [1, 2]"),
        ("no_actions", "answer has no 'actions' (keys: action)"),
    ],
)
def test_an_answer_that_is_not_one_is_the_servers_own_fault(serve, mode, message):
    srv = serve(mode)
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy),
        PolicyError,
        re.escape(f"openpi server ws://127.0.0.1:{srv.port}: {message}"),
    )


def test_garbage_metadata(serve):
    srv = serve("garbage_metadata")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: policy.preflight(10.0),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: metadata are 16 bytes that are not "
        r"openpi msgpack \(.+\)",
    )


def test_metadata_that_is_not_a_map(serve):
    srv = serve("hold", metadata=[1, 2, 3])
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: policy.preflight(10.0),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: metadata must be a map, got list \[1, 2, 3\]",
    )


def test_nan_actions_are_a_policy_error(serve):
    srv = serve("nan")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy),
        PolicyError,
        rf"openpi server ws://127.0.0.1:{srv.port}: its actions have non-finite values at "
        r"\(row, index\) "
        r"\[\(2, 6\)\]",
    )


def test_wrong_shape_actions_are_a_policy_error(serve):
    srv = serve("wrong_shape")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    _raises(
        lambda: _episode(policy),
        PolicyError,
        rf"openpi server ws://127.0.0.1:{srv.port}: its actions have shape \({HORIZON}, 7\); "
        r"expected \(14,\) or \(H, 14\)",
    )


def test_a_plain_tcp_port_times_out_the_handshake():
    tcp = PlainTcpServer()
    try:
        policy = OpenPiPolicy("127.0.0.1", tcp.port, **FAST)
        _raises(
            lambda: policy.preflight(10.0),
            InfraError,
            rf"openpi server ws://127.0.0.1:{tcp.port}: cannot connect after 2 attempt\(s\) in "
            r"\d+\.\d s \(connect timeout 0\.5 s, request timeout 0\.5 s, 1 retries, total limit "
            r"10 s\); last: no websocket handshake within the connect timeout \(0\.5 s\): is it "
            r"an openpi server\?",
        )
    finally:
        tcp.stop()


def test_a_server_closing_mid_handshake_is_one_transient_fault_every_time():
    """websockets reports this close as ConnectionClosedError in about 1 run of 10 (the close
    overtakes the sending of the HTTP request) and as InvalidMessage otherwise; 150 connects
    meet both, and each must end in the same InfraError after its retry (was a traceback).
    (On a loaded machine the request may reach the server before its close, which the kernel
    then sends as a reset: also an InfraError after the retry, naming the reset.)"""
    tcp = ClosingTcpServer()
    uri = f"ws://127.0.0.1:{tcp.port}"
    expected = (
        rf"openpi server {uri}: cannot connect after 2 attempt\(s\) in \d+\.\d s \(connect "
        r"timeout 0\.5 s, request timeout 0\.5 s, 1 retries\); last: (the server closed the "
        r"connection during the websocket handshake|connection refused or reset \(Connection "
        r"reset by peer\))"
    )
    try:
        for _ in range(150):
            conn = OpenPiConnection("127.0.0.1", tcp.port, **{**FAST, "backoff_s": 0.0})
            _raises(conn.open, InfraError, expected)
        assert tcp.accepted == 300
    finally:
        tcp.stop()


def test_a_server_restarted_mid_episode_is_reconnected_and_the_query_resent(serve):
    srv = serve("hold")
    policy = OpenPiPolicy("127.0.0.1", srv.port, convention="rsb", **FAST)
    policy.reset(None, _obs(), INFO)
    assert policy.act(_obs()).shape == (HORIZON, 14)
    srv.restart()
    chunk, err = bounded(lambda: policy.act(_obs()))
    assert err is None and chunk.shape == (HORIZON, 14)
    assert srv.connections == 2 and len(srv.seen) == 2
    policy.close()


def test_a_server_down_mid_episode_fails_after_retries(serve):
    srv = serve("hold")
    policy = OpenPiPolicy("127.0.0.1", srv.port, **FAST)
    policy.reset(None, _obs(), INFO)
    policy.act(_obs())
    srv.stop()
    _raises(
        lambda: policy.act(_obs()),
        InfraError,
        rf"openpi server ws://127.0.0.1:{srv.port}: query failed after 2 attempt\(s\) in "
        r"\d+\.\d s \(connect timeout 0\.5 s, request timeout 0\.5 s, 1 retries\); last: "
        r"connection refused or reset \(Connection refused\)",
    )
