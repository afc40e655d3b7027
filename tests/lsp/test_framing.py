"""LSP framing (rsb_mj.lsp.framing) and the server's answers to malformed input, over real
stdio with an ``rsb lsp`` process: a bad ``Content-Length`` (``abc``, ``-5``, a garbage
header, 99999999999) is skipped with one line on stderr and the next request is answered
(pygls' reader wedged for good, or died of MemoryError); a body that is not JSON gets a
parse error; a request at an impossible position gets a JSON-RPC error, not silence."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from rsb_mj.lsp.framing import MAX_HEADER_LINE, FrameReader

from .conftest import ROOT, server_env

BODY = b'{"jsonrpc":"2.0","id":1,"method":"x"}'


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def frames_of(data: bytes, max_bytes: int = 1024) -> tuple[list[bytes], list[str]]:
    logged: list[str] = []
    reader = FrameReader(io.BytesIO(data), logged.append, max_bytes=max_bytes)
    out = []
    while (body := reader.next()) is not None:
        out.append(body)
    return out, logged


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (b"Content-Length: abc\r\n\r\n" + BODY, "Content-Length 'abc' is not a byte count"),
        (b"Content-Length: -5\r\n\r\n" + BODY, "Content-Length '-5' is not a byte count"),
        (b"garbage\r\n\r\n" + BODY, "'garbage' is not a header (Name: value)"),
        (b"Content-Type: x\r\n\r\n" + BODY, "no Content-Length header in 'Content-Type: x'"),
        (
            b"Content-Length: 1025\r\n\r\n" + BODY,
            "Content-Length 1025 is over the limit of 1024 bytes",
        ),
        (b"x" * (MAX_HEADER_LINE + 10), "a header line of over 8192 bytes"),
        (b"Content-Length: " + b"5" * MAX_HEADER_LINE, "a header line of over 8192 bytes"),
        # read to the second length, it swallowed the next frame
        (
            b"Content-Length: 3\r\nContent-Length: 50\r\n\r\nabc",
            "2 Content-Length headers that disagree ('3', '50')",
        ),
        (
            b"Content-Length: 50\r\nContent-Type: x\r\ncontent-length: 3\r\n\r\nabc",
            "2 Content-Length headers that disagree ('50', '3')",
        ),
    ],
)
def test_a_malformed_frame_is_skipped_and_the_next_one_read(bad, why):
    data = frame(b"first") + bad + frame(BODY) + b"\r\n" + frame(b"last")
    assert frames_of(data) == (
        [b"first", BODY, b"last"],
        [f"rsb lsp: skipped a malformed message: {why}"],
    )


def test_a_header_glued_to_garbage_is_still_found_and_headers_are_case_insensitive():
    data = frame(b"a") + b"junkContent-Length: 3\r\n\r\nabc" + b"content-length: 2\r\n\r\nok"
    bodies, logged = frames_of(data)
    assert bodies == [b"a", b"abc", b"ok"]
    assert logged == [
        "rsb lsp: skipped a malformed message: no Content-Length header in 'junkContent-Length: 3'"
    ]


def test_a_stream_that_ends_mid_frame_ends_the_frames():
    assert frames_of(frame(b"a") + b"Content-Length: 10\r\n\r\nabc") == ([b"a"], [])
    assert frames_of(b"Content-Length: abc\r\n\r\n{}") == (
        [],
        ["rsb lsp: skipped a malformed message: Content-Length 'abc' is not a byte count"],
    )


class RawClient:
    """``rsb lsp`` over raw pipes: bytes in, framed JSON messages out (read on a thread)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rsb_mj", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=server_env(),
            cwd=ROOT,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(out.read(length)))

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(frame(json.dumps({"jsonrpc": "2.0", **message}).encode()))

    def answer(self, msg_id: int | None, timeout_s: float = 60.0) -> dict[str, Any]:
        """The next response with id ``msg_id`` (other messages are dropped)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=0.2)
            except queue.Empty:
                continue
            assert message is not None, f"the server closed its output: {self.stderr()}"
            if "id" in message and message["id"] == msg_id and "method" not in message:
                return message
        raise AssertionError(f"no answer to request {msg_id} in {timeout_s} s")

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.stderr.read().decode()


@pytest.fixture(scope="module")
def raw():
    client = RawClient()
    client.send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
    assert "capabilities" in client.answer(1)["result"]
    client.send({"method": "initialized", "params": {}})
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
    client.proc.wait(10)


TASK = ROOT / "tasks" / "rsb_math_4.bddl"


def hover(raw: RawClient, msg_id: int, line: Any, character: Any = 0, uri: str = "") -> None:
    uri = uri or TASK.as_uri()
    position = {"line": line, "character": character}
    params = {"textDocument": {"uri": uri}, "position": position}
    raw.send({"id": msg_id, "method": "textDocument/hover", "params": params})


@pytest.mark.parametrize(
    ("bad", "n"),
    [
        (b"Content-Length: abc\r\n\r\n{}", 10),
        (b"Content-Length: -5\r\n\r\n{}", 11),
        (b"%$garbage\r\n\r\n{}", 12),
        (b"Content-Length: 99999999999\r\n\r\n{}", 13),
    ],
)
def test_the_server_answers_the_request_after_a_bad_frame(raw, bad, n):
    raw.send_raw(bad)
    hover(raw, n, 0)
    assert raw.answer(n) == {"jsonrpc": "2.0", "id": n, "result": None}


def test_a_frame_with_two_lengths_is_skipped_and_the_next_request_answered(raw):
    # the request after it was read as the rest of its body: never answered, nothing said
    params = {"textDocument": {"uri": TASK.as_uri()}, "position": {"line": 0, "character": 0}}
    body = json.dumps({"jsonrpc": "2.0", "id": 14, "method": "textDocument/hover",
                       "params": params}).encode()  # fmt: skip
    raw.send_raw(b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(body), 400) + body)
    hover(raw, 15, 0)
    assert raw.answer(15) == {"jsonrpc": "2.0", "id": 15, "result": None}
    raw.two_lengths = len(body)  # type: ignore[attr-defined]


def test_hover_on_a_document_never_opened_and_not_on_disk_is_null(raw, tmp_path):
    # a FileNotFoundError traceback on stderr
    missing = (tmp_path / "never.bddl").as_uri()
    hover(raw, 16, 0, uri=missing)
    assert raw.answer(16) == {"jsonrpc": "2.0", "id": 16, "result": None}
    fifo = tmp_path / "fifo.bddl"
    os.mkfifo(fifo)  # reading it would block the server
    hover(raw, 17, 0, uri=fifo.as_uri())
    assert raw.answer(17) == {"jsonrpc": "2.0", "id": 17, "result": None}
    raw.send({"id": 18, "method": "textDocument/completion", "params": {
        "textDocument": {"uri": missing}, "position": {"line": 0, "character": 0}}})  # fmt: skip
    assert raw.answer(18) == {"jsonrpc": "2.0", "id": 18, "result": None}
    raw.unopened = (missing, fifo.as_uri())  # type: ignore[attr-defined]


def test_a_body_that_is_not_json_gets_a_parse_error(raw):
    raw.send_raw(frame(b"{x"))
    assert raw.answer(None) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32700,
            "message": "Parse error: Expecting property name enclosed in double quotes: line 1 "
            "column 2 (char 1)",
        },
    }


def test_requests_at_impossible_positions_get_a_json_rpc_error(raw):
    text = TASK.read_text(encoding="utf-8")
    lines = text.count("\n") + 1
    raw.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": TASK.as_uri(),
                    "languageId": "bddl",
                    "version": 1,
                    "text": text,
                }
            },
        }
    )
    hover(raw, 20, 10**6)
    assert raw.answer(20)["error"] == {
        "code": -32602,
        "message": f"Invalid params: line 1000000 is past the end of {TASK.as_uri()} (lines 0 "
        f"to {lines - 1})",
    }
    hover(raw, 21, -1)
    assert raw.answer(21)["error"] == {
        "code": -32602,
        "message": "Invalid Params: Position.line should be in range [0:2147483647], but was -1.",
    }
    hover(raw, 22, "a")
    assert raw.answer(22)["error"]["code"] == -32602
    hover(raw, 23, 0, 10**6)  # past the line's end: the line's end (the LSP rule), no error
    assert raw.answer(23) == {"jsonrpc": "2.0", "id": 23, "result": None}


def test_stderr_says_what_was_skipped_and_no_traceback(raw):
    raw.send({"id": 99, "method": "shutdown"})
    raw.answer(99)
    raw.send({"method": "exit"})
    assert raw.proc.wait(30) == 0
    err = raw.stderr()
    assert "Traceback" not in err
    for line in (
        "rsb lsp: skipped a malformed message: Content-Length 'abc' is not a byte count",
        "rsb lsp: skipped a malformed message: Content-Length '-5' is not a byte count",
        "rsb lsp: skipped a malformed message: '%$garbage' is not a header (Name: value)",
        "rsb lsp: skipped a malformed message: Content-Length 99999999999 is over the limit "
        "of 67108864 bytes",
        "rsb lsp: refused request 21 (textDocument/hover): Invalid Params: Position.line "
        "should be in range [0:2147483647], but was -1.",
        "rsb lsp: skipped a malformed message: 2 Content-Length headers that disagree "
        f"('{raw.two_lengths}', '400')",
        f"rsb lsp: {raw.unopened[0]} is not open and its file cannot be read (No such file or "
        "directory); null",
        f"rsb lsp: {raw.unopened[1]} is not open and its file cannot be read (not a regular "
        "file of at most 67108864 bytes); null",
    ):
        assert line in err.splitlines(), err
