"""Fake openpi policy servers on 127.0.0.1 for the tests, healthy and faulty.

:class:`FakeOpenPiServer` speaks openpi's websocket protocol like
``openpi.serving.websocket_policy_server``: on connect it sends a msgpack metadata map, then
answers each msgpack observation with a map holding ``actions`` (H, 14); when the policy
raises it sends the traceback as a text frame and closes. ``GET /healthz`` answers 200.
Its ``mode`` picks the policy or the fault:

``hold``          actions = the received state, H times (no transforms)
``aloha``         openpi's ALOHA transforms (``adapt_to_pi=True``, transcribed below from
                  ``src/openpi/policies/aloha_policy.py``) around a model that echoes its
                  input state as every action row
``silent``        sends metadata, then never answers
``no_metadata``   accepts the websocket, never sends metadata
``close``         answers ``answer_first`` queries (server-wide), then closes every
                  connection at its next query without answering
``garbage``       answers queries with bytes that are not msgpack
``not_a_map``     answers queries with the msgpack list ``[1, 2]``
``no_actions``    answers queries with a map whose chunk is under ``action``, not ``actions``
``garbage_metadata``  sends bytes that are not msgpack as its metadata
``nan``           actions with NaN at row 2, index 6
``wrong_shape``   actions of shape (H, 7)
``object_dtype``  actions as an array envelope of dtype ``"|O"`` whose bytes would be read
                  as object pointers (issue 23 item 1: a segfault before the wire checked it)

``restart_after=N`` makes any mode restart itself (stop, listen again on the same port)
right after its N-th answer.

:class:`PlainTcpServer` accepts TCP connections and never says a word (not a websocket
server); :class:`ClosingTcpServer` closes each connection it accepts, mid-handshake.
:func:`free_port` is a port nobody listens on (connections are refused).

Run standalone (for subprocess tests): ``python openpi_server.py PORTFILE [MODE]``.
"""

from __future__ import annotations

import http
import socket
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
from websockets.sync.server import Server, ServerConnection, serve

from rsb_mj.policies.wire import packb, unpackb

HORIZON = 5
METADATA = {"policy": "hold-state", "action_horizon": HORIZON}
GARBAGE = b"\xc1\xc1 not msgpack \xff"
#: The hostile reply of ``object_dtype``: 8 "pointers" read from b"AAAA...".
OBJECT_REPLY = msgpack.packb(
    {"actions": {b"__ndarray__": True, b"data": b"A" * 64, b"dtype": "|O", b"shape": [8]}}
)

# ---- openpi's ALOHA transforms (adapt_to_pi=True), as in openpi's aloha_policy.py -------


def _joint_flip_mask() -> np.ndarray:
    return np.array([1, -1, -1, 1, 1, 1, 1, 1, -1, -1, 1, 1, 1, 1])


def _normalize(x, min_val, max_val):
    return (x - min_val) / (max_val - min_val)


def _unnormalize(x, min_val, max_val):
    return x * (max_val - min_val) + min_val


def _gripper_to_angular(value):
    value = _unnormalize(value, min_val=0.01844, max_val=0.05800)

    def linear_to_radian(linear_position, arm_length, horn_radius):
        value = (horn_radius**2 + linear_position**2 - arm_length**2) / (
            2 * horn_radius * linear_position
        )
        return np.arcsin(np.clip(value, -1.0, 1.0))

    value = linear_to_radian(value, arm_length=0.036, horn_radius=0.022)
    return _normalize(value, min_val=0.5476, max_val=1.6296)


def _gripper_from_angular(value):
    value = value + 0.5476
    return _normalize(value, min_val=-0.6213, max_val=1.4910)


def aloha_decode_state(state: np.ndarray) -> np.ndarray:
    """openpi's ``_decode_state(state, adapt_to_pi=True)``: ALOHA state -> pi state."""
    state = _joint_flip_mask() * state
    state[[6, 13]] = _gripper_to_angular(state[[6, 13]])
    return state


def aloha_encode_actions(actions: np.ndarray) -> np.ndarray:
    """openpi's ``_encode_actions(actions, adapt_to_pi=True)``: pi actions -> ALOHA actions."""
    actions = _joint_flip_mask() * actions
    actions[:, [6, 13]] = _gripper_from_angular(actions[:, [6, 13]])
    return actions


# ---- servers ------------------------------------------------------------------------------


class FakeOpenPiServer:
    """A fake openpi server (see the module docstring); keeps every observation in ``seen``.

    Attributes:
        seen: observations received, in order (all connections).
        connections: websocket connections accepted so far.
    """

    def __init__(
        self,
        mode: str = "hold",
        *,
        metadata: Any = None,
        horizon: int = HORIZON,
        answer_first: int = 0,
        restart_after: int = 0,
        text: str | None = None,
        extra: Any = None,
    ) -> None:
        self.mode = mode
        self.text = text
        self.extra = extra
        self.metadata = METADATA if metadata is None else metadata
        self.horizon = horizon
        self.answer_first = answer_first
        self.restart_after = restart_after
        self.seen: list[dict] = []
        self.connections = 0
        self.port = 0
        self._answered = 0
        self._open: list[ServerConnection] = []
        self._lock = threading.RLock()  # start/stop/restart from the test and from restarts
        self._stopped = False
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    def _actions(self, obs: dict) -> np.ndarray:
        state = np.asarray(obs["state"], dtype=np.float64)
        if self.mode == "aloha":
            pi_state = aloha_decode_state(state.copy())
            return aloha_encode_actions(np.tile(pi_state, (self.horizon, 1))).astype(np.float32)
        actions = np.tile(state, (self.horizon, 1))
        if self.mode == "nan":
            actions[2, 6] = np.nan
        if self.mode == "wrong_shape":
            actions = actions[:, :7]
        return actions

    def _handler(self, conn: ServerConnection) -> None:
        self.connections += 1
        self._open.append(conn)
        if self.mode == "no_metadata":
            for _ in conn:  # read and ignore until the client gives up
                pass
            return
        conn.send(GARBAGE if self.mode == "garbage_metadata" else packb(self.metadata))
        for message in conn:
            try:
                obs = unpackb(message)
                self.seen.append(obs)
                if self.mode == "silent":
                    continue
                if self.mode == "close" and self._answered >= self.answer_first:
                    conn.close()
                    return
                if self.mode in ("garbage", "object_dtype"):
                    conn.send(GARBAGE if self.mode == "garbage" else OBJECT_REPLY)
                    continue
                if self.mode in ("not_a_map", "no_actions"):  # msgpack, but not an answer
                    bad = [1, 2] if self.mode == "not_a_map" else {"action": self._actions(obs)}
                    conn.send(packb(bad))
                    continue
                if obs["prompt"] == "boom":
                    raise ValueError("the policy exploded")
                reply = {"actions": self._actions(obs)}
                if self.text is not None:  # a server that writes a rationale
                    reply["text"] = self.text
                if self.extra is not None:  # more reply keys, a function of the observation
                    reply.update(self.extra(obs))
                conn.send(packb(reply))
                self._answered += 1
                if self._answered == self.restart_after:
                    threading.Thread(target=self.restart, daemon=True).start()
            except Exception:
                conn.send(traceback.format_exc())
                conn.close(1011, "Internal server error. Traceback included in previous frame.")
                return

    @staticmethod
    def _health(conn: ServerConnection, request):
        if request.path == "/healthz":
            return conn.respond(http.HTTPStatus.OK, "OK\n")
        return None

    def start(self, port: int = 0) -> int:
        """Listen on 127.0.0.1 (``port``, 0 for a free one) in a thread; return the port."""
        with self._lock:
            self._stopped = False
            return self._start(port)

    def _start(self, port: int) -> int:
        self._server = serve(
            self._handler, "127.0.0.1", port, compression=None, max_size=None,
            process_request=self._health,
        )  # fmt: skip
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.port = self._server.socket.getsockname()[1]
        return self.port

    def stop(self) -> None:
        """Shut the server down, closing its connections (idempotent)."""
        with self._lock:
            self._stopped = True
            self._stop()

    def _stop(self) -> None:
        if self._server is not None:
            for conn in self._open:  # older websockets leave them open at shutdown
                conn.close(1001)
            self._open.clear()
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._server = None

    def restart(self) -> None:
        """Stop, then listen again on the same port (a server restarted mid-run)."""
        with self._lock:
            if self._stopped:  # a restart scheduled before the test stopped the server
                return
            self._stop()
            self._start(self.port)


class HoldStateServer(FakeOpenPiServer):
    """The healthy ``hold`` server."""

    def __init__(self) -> None:
        super().__init__("hold")


class PlainTcpServer:
    """A TCP port that accepts connections and never answers (not a websocket server)."""

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._peers: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self._sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                peer, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._peers.append(peer)

    def stop(self) -> None:
        """Close the port and every accepted connection."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()
        for peer in self._peers:
            peer.close()


class ClosingTcpServer:
    """A TCP port that accepts each connection and closes it at once, before any HTTP
    answer: a server going down in the middle of a client's websocket handshake.

    Attributes:
        port: the listening port on 127.0.0.1.
        accepted: connections accepted (and closed) so far.
    """

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.port = self._sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self._sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                peer, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            peer.close()

    def stop(self) -> None:
        """Close the port."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()


def free_port() -> int:
    """A 127.0.0.1 port with no listener (connections to it are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    server = FakeOpenPiServer(sys.argv[2] if len(sys.argv) > 2 else "hold")
    port = server.start()
    Path(sys.argv[1]).write_text(str(port))
    server._thread.join()
