"""One websocket connection to an openpi policy server, with timeouts and bounded retries.

openpi's protocol (``openpi_client.websocket_client_policy``, ``openpi.serving.
websocket_policy_server``): the client opens ``ws://HOST:PORT``; the server first sends a
msgpack metadata map; then every binary message the client sends (an observation) is
answered by one binary message (a map with ``actions``), or by a text frame holding the
server's traceback, after which the server closes the connection.

Every wait is bounded: ``connect_timeout_s`` for the TCP connect, the websocket handshake
and the metadata; ``request_timeout_s`` for sending an observation and receiving its answer.
Transient faults (connection refused or reset, a connect timeout, a connection the server
closed, also during the handshake) are retried up to ``retries`` times with exponential
backoff ``backoff_s * 2**k``; a request whose connection was closed is re-sent once
reconnected (openpi servers answer each observation on its own, so a re-sent query is
safe). Protocol faults (garbage bytes, metadata that is not a map, an answer that is not a
map) and request timeouts are not retried. Whose fault it is (:mod:`rsb_mj.evaluation.faults`):
what the server *says* is its own and raises :class:`~rsb_mj.errors.PolicyError` (a
traceback, an answer that is not msgpack or not a map, a batched answer of the wrong form);
what happens to the *connection* (refused, reset or closed after the retries, no answer
within the request timeout) and a server that is not usable at connect time (not a websocket
server, unusable metadata) raise :class:`~rsb_mj.errors.InfraError`, naming the server, what
happened and the limit that was hit.
:meth:`OpenPiConnection.request_batch` sends several observations as one request (to a
server that advertises ``max_batch_size``), within the same one request timeout.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    InvalidURI,
)
from websockets.sync.client import ClientConnection, connect

from rsb_mj.errors import EpisodeFault, EvalError, InfraError, PolicyError
from rsb_mj.policies.wire import WireError, packb, unpackb

#: Defaults (seconds, count) of :class:`OpenPiConnection`; see ``rsb eval --help``.
CONNECT_TIMEOUT_S = 5.0
REQUEST_TIMEOUT_S = 30.0
RETRIES = 3
BACKOFF_S = 0.5
#: The transient fault of a server that closes the TCP connection during the websocket
#: handshake (one restarting, or shutting down): websockets reports it as
#: ``ConnectionClosedError`` or as ``InvalidMessage`` from ``EOFError``, depending on whether
#: the close overtook the sending of the HTTP request; both are the same fault here.
CLOSED_IN_HANDSHAKE = "the server closed the connection during the websocket handshake"


class _Transient(Exception):
    """A fault worth another attempt (the message says what happened)."""


class OpenPiConnection:
    """A client connection to ``ws://host:port`` speaking openpi's protocol.

    Attributes:
        uri: ``ws://host:port``.
        metadata: the server's metadata map (empty before the first connect).
        attempts: connection attempts made so far (for messages and tests).
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        retries: int = RETRIES,
        backoff_s: float = BACKOFF_S,
    ) -> None:
        """Remember the server; nothing is opened until :meth:`open` or :meth:`request`.

        Args:
            host: server host name or address.
            port: server TCP port.
            connect_timeout_s: limit [s] of one connection attempt (TCP connect, websocket
                handshake and the server's metadata together).
            request_timeout_s: limit [s] of one query (send the observation, receive the
                answer).
            retries: further attempts after a transient fault (0: a single attempt).
            backoff_s: sleep [s] before retry k (0-based) is ``backoff_s * 2**k``.
        """
        self.uri = f"ws://{host}:{port}"
        self.connect_timeout_s = float(connect_timeout_s)
        self.request_timeout_s = float(request_timeout_s)
        self.retries = int(retries)
        self.backoff_s = float(backoff_s)
        self.metadata: dict[str, Any] = {}
        self.attempts = 0
        self._ws: ClientConnection | None = None
        self._pid = 0

    # ---- connecting -----------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """True when a connection of this process is open."""
        return self._ws is not None and self._pid == os.getpid()

    def _limits(self) -> str:
        return (
            f"connect timeout {self.connect_timeout_s:g} s, request timeout "
            f"{self.request_timeout_s:g} s, {self.retries} retries"
        )

    def _connect_once(self, timeout_s: float) -> None:
        """One attempt: TCP + handshake + metadata within ``timeout_s``."""
        self.attempts += 1
        start = time.monotonic()
        if timeout_s >= self.connect_timeout_s - 0.01:
            limit = f"the connect timeout ({self.connect_timeout_s:g} s)"
        else:  # the last attempt of a start-up check gets what is left of its limit
            limit = f"the {timeout_s:.1f} s left of the start-up limit"
        try:
            ws = connect(
                self.uri,
                open_timeout=timeout_s,
                close_timeout=1.0,
                compression=None,
                max_size=None,
                ping_interval=None,  # an inference may hold the server longer than a ping
            ).__enter__()  # a connection we close ourselves (websockets >= 17.1 asks for this)
        except TimeoutError:
            raise _Transient(
                f"no websocket handshake within {limit}: is it an openpi server?"
            ) from None
        except (ConnectionRefusedError, ConnectionResetError, ConnectionAbortedError) as exc:
            raise _Transient(f"connection refused or reset ({exc.strerror or exc})") from None
        except ConnectionClosed:  # closed while our request was being sent (a race with EOF)
            raise _Transient(CLOSED_IN_HANDSHAKE) from None
        except InvalidMessage as exc:
            if isinstance(exc.__cause__, EOFError):  # closed before any HTTP answer
                raise _Transient(CLOSED_IN_HANDSHAKE) from None
            raise InfraError(
                f"openpi server {self.uri}: not a websocket server "
                f"({type(exc).__name__}: {exc}); is the port an openpi server's?"
            ) from None
        except InvalidStatus as exc:
            status = exc.response.status_code
            if 500 <= status < 600:  # e.g. 503 from a websockets server shutting down
                raise _Transient(f"handshake answered HTTP {status}") from None
            raise InfraError(
                f"openpi server {self.uri}: the websocket handshake was answered with HTTP "
                f"{status}; is the port an openpi server's?"
            ) from None
        except socket.gaierror as exc:
            raise InfraError(f"openpi server {self.uri}: cannot resolve the host ({exc})") from None
        except (InvalidHandshake, InvalidURI, EOFError) as exc:
            raise InfraError(
                f"openpi server {self.uri}: not a websocket server "
                f"({type(exc).__name__}: {exc}); is the port an openpi server's?"
            ) from None
        except OSError as exc:
            raise _Transient(f"cannot connect ({exc})") from None
        try:
            remaining = max(0.01, timeout_s - (time.monotonic() - start))
            try:
                raw = ws.recv(timeout=remaining)
            except TimeoutError:
                raise InfraError(
                    f"openpi server {self.uri}: sent no metadata within {limit} after the handshake"
                ) from None
            except ConnectionClosed as exc:
                raise _Transient(f"closed the connection before sending metadata ({exc})") from None
            if isinstance(raw, str):
                raise InfraError(
                    f"openpi server {self.uri}: sent text instead of its metadata: {raw[:200]!r}"
                )
            try:
                metadata = unpackb(raw)
            except WireError as exc:
                raise InfraError(f"openpi server {self.uri}: metadata are {exc}") from None
            if not isinstance(metadata, dict):
                raise InfraError(
                    f"openpi server {self.uri}: metadata must be a map, got "
                    f"{type(metadata).__name__} {metadata!r:.80}"
                )
        except BaseException:
            ws.close()
            raise
        self._ws, self._pid, self.metadata = ws, os.getpid(), metadata

    def _backoff(self, k: int, deadline: float) -> bool:
        """Sleep before retry ``k``; False when that would pass ``deadline``."""
        pause = self.backoff_s * 2**k
        if time.monotonic() + pause >= deadline:
            return False
        time.sleep(pause)
        return True

    def open(self, total_timeout_s: float | None = None) -> dict[str, Any]:
        """Connect (with retries) and return the server's metadata.

        Args:
            total_timeout_s: limit [s] of all attempts together (``preflight``); None for
                ``retries + 1`` attempts of ``connect_timeout_s`` each.

        Raises:
            InfraError: when every attempt failed, or at once on a protocol fault.
        """
        if self.is_open:
            return self.metadata
        self._drop()
        start = time.monotonic()
        deadline = start + total_timeout_s if total_timeout_s is not None else float("inf")
        last, made = "", 0
        for k in range(self.retries + 1):
            timeout = min(self.connect_timeout_s, deadline - time.monotonic())
            if timeout <= 0:
                break
            made += 1
            try:
                self._connect_once(timeout)
                return self.metadata
            except _Transient as exc:
                last = str(exc)
            if k == self.retries or not self._backoff(k, deadline):
                break
        limit = f", total limit {total_timeout_s:g} s" if total_timeout_s is not None else ""
        raise InfraError(
            f"openpi server {self.uri}: cannot connect after {made} attempt(s) in "
            f"{time.monotonic() - start:.1f} s ({self._limits()}{limit}); last: {last}"
        )

    # ---- querying -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _send_watchdog(self, ws: ClientConnection) -> Iterator[threading.Event]:
        """Shut the socket if sending outlives the request timeout (``send`` has no timeout
        of its own: a peer that stops reading would block it forever)."""
        fired = threading.Event()

        def expire() -> None:
            fired.set()
            with contextlib.suppress(OSError):
                ws.socket.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(self.request_timeout_s, expire)
        timer.daemon = True
        timer.start()
        try:
            yield fired
        finally:
            timer.cancel()

    def _request_once(self, data: bytes) -> Any:
        ws = self._ws
        if ws is None:
            raise _Transient("not connected")
        start = time.monotonic()
        try:
            with self._send_watchdog(ws) as fired:
                try:
                    ws.send(data)
                except (ConnectionClosed, OSError) as exc:
                    if fired.is_set():
                        raise TimeoutError from None
                    raise _Transient(f"the connection broke while sending ({exc})") from None
            remaining = max(0.01, self.request_timeout_s - (time.monotonic() - start))
            reply = ws.recv(timeout=remaining)
        except TimeoutError:
            self._drop()  # a late answer would pair with the next query
            raise InfraError(
                f"openpi server {self.uri}: no answer within the request timeout "
                f"({self.request_timeout_s:g} s)"
            ) from None
        except ConnectionClosed as exc:
            self._drop()
            raise _Transient(f"the server closed the connection before answering ({exc})") from None
        if isinstance(reply, str):  # openpi servers send their traceback as text, then close
            self._drop()
            raise PolicyError(f"openpi server {self.uri}: the policy raised:\n{reply}")
        try:
            answer = unpackb(reply)
        except WireError as exc:
            self._drop()
            raise PolicyError(f"openpi server {self.uri}: answered with {exc}") from None
        if not isinstance(answer, dict):
            self._drop()
            raise PolicyError(
                f"openpi server {self.uri}: answer must be a map with 'actions', got "
                f"{type(answer).__name__} {answer!r:.80}"
            )
        return answer

    def request(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Send one observation and return the server's answer map.

        Reconnects (and re-sends) after a transient fault, up to ``retries`` times.

        Raises:
            InfraError: on a timeout, a fault at connect time or when retries are exhausted.
            PolicyError: when the server sent its traceback or an answer that is not a map.
        """
        try:
            data = packb(obs)
        except WireError as exc:
            raise EvalError(
                f"openpi server {self.uri}: cannot send the observation: {exc}"
            ) from None
        start = time.monotonic()
        last = ""
        for k in range(self.retries + 1):
            try:
                if not self.is_open:
                    self._drop()
                    self._connect_once(self.connect_timeout_s)
                return self._request_once(data)
            except _Transient as exc:
                self._drop()
                last = str(exc)
            if k == self.retries:
                break
            self._backoff(k, float("inf"))
        raise InfraError(
            f"openpi server {self.uri}: query failed after {self.retries + 1} attempt(s) in "
            f"{time.monotonic() - start:.1f} s ({self._limits()}); last: {last}"
        )

    def request_batch(self, batch: list[dict[str, Any]]) -> list[dict[str, Any] | EpisodeFault]:
        """Send several observations as one batched request and return their answers, in
        order (a server advertising ``max_batch_size``; the form is in
        :mod:`rsb_mj.policies.openpi`): an answer map per observation, or a
        :class:`PolicyError` where the server answered ``{"error": ...}`` for it.

        Raises:
            InfraError: as :meth:`request`; PolicyError: as :meth:`request` (every
                observation of the request failed), or for an answer without ``batch``: a
                list of as many maps as observations.
        """
        answer = self.request({"batch": list(batch)})
        items = answer.get("batch")
        if not isinstance(items, list) or len(items) != len(batch):
            got = (
                f"{len(items)} items"
                if isinstance(items, list)
                else f"keys {sorted(map(str, answer))}"
            )
            raise PolicyError(
                f"openpi server {self.uri}: a batched answer must hold 'batch': a list of "
                f"{len(batch)} answers, one per observation; got {got}"
            )
        out: list[dict[str, Any] | EpisodeFault] = []
        for k, item in enumerate(items):
            if not isinstance(item, dict):
                out.append(PolicyError(
                    f"openpi server {self.uri}: batched answer {k} is {type(item).__name__}, "
                    "not a map"
                ))  # fmt: skip
            elif "actions" not in item and "error" in item:
                error = item["error"]
                if isinstance(error, bytes):
                    error = error.decode("utf-8", "replace")
                out.append(PolicyError(
                    f"openpi server {self.uri}: the policy failed this observation: "
                    f"{str(error)[:2000]}"
                ))  # fmt: skip
            else:
                out.append(item)
        return out

    # ---- closing --------------------------------------------------------------------------

    def _drop(self) -> None:
        """Forget the connection; close it only if this process opened it (a forked
        child must not close its parent's websocket)."""
        ws, self._ws = self._ws, None
        if ws is not None and self._pid == os.getpid():
            with contextlib.suppress(Exception):
                ws.close()

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._drop()
