"""A minimal policy server speaking openpi's websocket protocol, on 127.0.0.1 only.

Like ``openpi.serving.websocket_policy_server``: on connect it sends a msgpack metadata dict,
then answers each msgpack observation (``openpi_client.msgpack_numpy`` envelopes) with a
dict holding ``actions`` (H, 14); on an exception it sends the traceback as a text frame.
``GET /healthz`` answers 200. The served policy holds the received state for H steps.

Run standalone (for subprocess tests): ``python openpi_server.py PORTFILE`` writes the port.
"""

from __future__ import annotations

import http
import sys
import threading
import traceback
from pathlib import Path

import numpy as np
from openpi_client import msgpack_numpy
from websockets.sync.server import Server, ServerConnection, serve

HORIZON = 5
METADATA = {"policy": "hold-state", "action_horizon": HORIZON}


class HoldStateServer:
    """Serves the hold-state policy; keeps every observation it received (``seen``)."""

    def __init__(self) -> None:
        self.seen: list[dict] = []
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    def _handler(self, conn: ServerConnection) -> None:
        packer = msgpack_numpy.Packer()
        conn.send(packer.pack(METADATA))
        for message in conn:
            try:
                obs = msgpack_numpy.unpackb(message)
                self.seen.append(obs)
                if obs["prompt"] == "boom":
                    raise ValueError("the policy exploded")
                state = np.asarray(obs["state"], dtype=np.float64)
                conn.send(packer.pack({"actions": np.tile(state, (HORIZON, 1))}))
            except Exception:
                conn.send(traceback.format_exc())

    @staticmethod
    def _health(conn: ServerConnection, request):
        if request.path == "/healthz":
            return conn.respond(http.HTTPStatus.OK, "OK\n")
        return None

    def start(self) -> int:
        """Listen on 127.0.0.1 on a free port in a thread; return the port."""
        self._server = serve(
            self._handler, "127.0.0.1", 0, compression=None, max_size=None,
            process_request=self._health,
        )  # fmt: skip
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self._server.socket.getsockname()[1]

    def stop(self) -> None:
        """Shut the server down."""
        if self._server is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)


if __name__ == "__main__":
    server = HoldStateServer()
    port = server.start()
    Path(sys.argv[1]).write_text(str(port))
    server._thread.join()
