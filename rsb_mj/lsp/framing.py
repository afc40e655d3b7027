"""LSP base-protocol framing on a byte stream: ``Content-Length: N\\r\\n\\r\\n`` + N bytes.

:class:`FrameReader` replaces pygls' reader, which takes the first line matching
``Content-Length: (\\d+)`` and reads that many bytes: a header it cannot read (``abc``,
``-5``, garbage) leaves it gluing every later header to the body before it, so the server
never answers again, and ``Content-Length: 99999999999`` asks for 93 GiB at once
(``MemoryError``). Here a frame whose header block holds no valid ``Content-Length``, or a
length over :data:`MAX_FRAME_BYTES`, is reported (one line through ``log``) and skipped: the
reader resynchronises on the next ``Content-Length:`` in the stream, so the next well-formed
message is served as if nothing had happened. Two ``Content-Length`` headers that disagree
make a frame of unknown length: it is reported and skipped whole (its header block and the
bytes up to the next ``Content-Length:``), never read to the longer length, which would
swallow the next request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import BinaryIO

#: The largest message body accepted [bytes] (a task file is a few KiB; 64 MiB leaves room
#: for any document an editor would send).
MAX_FRAME_BYTES = 64 * 2**20
#: The longest header line [bytes]; a longer run without a newline is not a header.
MAX_HEADER_LINE = 8192
#: The header every frame starts with (the name is case-insensitive).
CONTENT_LENGTH = b"content-length:"
_DIGITS = re.compile(rb"[0-9]{1,20}")
_CHUNK = 65536


class FrameReader:
    """Frames of an LSP byte stream, resynchronising after a malformed one.

    Args:
        stream: the client's output (the server's standard input), read with ``read1``
            when it has one (no wait for more bytes than are there).
        log: called with one line for each frame skipped, saying why.
        max_bytes: the largest body accepted [bytes].
    """

    def __init__(
        self,
        stream: BinaryIO,
        log: Callable[[str], None],
        max_bytes: int = MAX_FRAME_BYTES,
    ) -> None:
        self._stream = stream
        self._read = getattr(stream, "read1", stream.read)
        self._log = log
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._eof = False
        #: Frames skipped so far.
        self.skipped = 0

    def next(self) -> bytes | None:
        """The next frame's body; None at the end of the stream."""
        while True:
            block = self._header_block()
            if block is None:
                return None
            raw, lines, problem = block
            length, whole = 0, False
            if problem is None:
                length, problem, whole = self._length(lines)
            if problem is None:
                body = self._take(length)
                return body if len(body) == length else None
            self.skipped += 1
            self._log(f"rsb lsp: skipped a malformed message: {problem}")
            if not whole:
                # look for the next frame from the second byte of this one: a header glued to
                # garbage before it is found, and every skip moves on by one byte at least
                self._buf[0:0] = raw
                del self._buf[:1]
            if not self._resync():
                return None

    # ---- the header block --------------------------------------------------------------

    def _header_block(self) -> tuple[bytes, list[bytes], str | None] | None:
        """The bytes and lines of the headers up to the blank line (None at the end of the
        stream), and the problem of a line that is no header."""
        raw = bytearray()
        lines: list[bytes] = []
        while True:
            line = self._line()
            if line is None:
                return None
            if not line.endswith(b"\n"):  # too long to be a header: left in the buffer
                return bytes(raw), lines, f"a header line of over {MAX_HEADER_LINE} bytes"
            text = line.rstrip(b"\r\n")
            if not text and not lines:  # a stray blank line between messages
                continue
            raw += line
            if not text:
                return bytes(raw), lines, None
            if b":" not in text:
                return bytes(raw), lines, f"{_show(text)} is not a header (Name: value)"
            lines.append(text)

    def _length(self, lines: list[bytes]) -> tuple[int, str | None, bool]:
        """The body length the header lines declare, or why there is none; and whether the
        whole header block is to be skipped (headers that disagree: rescanning it would find
        the second ``Content-Length`` and read to its length)."""
        values = [
            line.split(b":", 1)[1].strip()
            for line in lines
            if line.lower().startswith(CONTENT_LENGTH)
        ]
        if not values:
            return 0, f"no Content-Length header in {_show(b' | '.join(lines))}", False
        if len(set(values)) > 1:
            shown = ", ".join(_show(v) for v in values)
            return 0, f"{len(values)} Content-Length headers that disagree ({shown})", True
        value = values[-1]
        if not _DIGITS.fullmatch(value):
            return 0, f"Content-Length {_show(value)} is not a byte count", False
        length = int(value)
        if length > self.max_bytes:
            return 0, f"Content-Length {length} is over the limit of {self.max_bytes} bytes", False
        return length, None, False

    def _resync(self) -> bool:
        """Drop bytes up to the next ``Content-Length:`` (False at the end of the stream)."""
        while True:
            found = self._buf.lower().find(CONTENT_LENGTH)
            if found >= 0:
                del self._buf[:found]
                return True
            keep = len(CONTENT_LENGTH) - 1  # a header split across two reads
            del self._buf[: max(0, len(self._buf) - keep)]
            if not self._fill():
                return False

    # ---- bytes -----------------------------------------------------------------------------

    def _fill(self) -> bool:
        """Read what the stream has (at least one byte); False at its end."""
        if self._eof:
            return False
        chunk = self._read(_CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _line(self) -> bytes | None:
        """The next line with its newline; a prefix of :data:`MAX_HEADER_LINE` bytes when
        none ends there (kept in the buffer for the resync); None at the end."""
        while True:
            end = self._buf.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0:
                line = bytes(self._buf[: end + 1])
                del self._buf[: end + 1]
                return line
            if len(self._buf) >= MAX_HEADER_LINE:
                return bytes(self._buf[:MAX_HEADER_LINE])
            if not self._fill():
                return None

    def _take(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end of the stream)."""
        while len(self._buf) < n and self._fill():
            pass
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out


def _show(raw: bytes, limit: int = 60) -> str:
    """Bytes of a header for a message: their repr, cut to ``limit`` characters."""
    text = repr(raw.decode("utf-8", "replace"))
    return text if len(text) <= limit else text[: limit - 4] + "...'"


__all__ = ["CONTENT_LENGTH", "MAX_FRAME_BYTES", "MAX_HEADER_LINE", "FrameReader"]
