"""Positions: the linter's 1-based character spans and LSP's 0-based positions.

The parser counts lines by ``\\n`` and columns in characters (code points), 1-based, with an
exclusive end column; an LSP client counts lines the same way (0-based) but columns in the
code units of the negotiated position encoding (UTF-16 unless the client offers another).
:class:`Positions` converts between the two for one text.
"""

from __future__ import annotations

from bisect import bisect_right

from lsprotocol import types

from rsb_mj.lang.nodes import Span


def _units(text: str, encoding: str) -> int:
    """Length of ``text`` in code units of ``encoding`` ("utf-8", "utf-16", "utf-32")."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


class Positions:
    """Offsets, spans and LSP positions of one text.

    Attributes:
        text: the document's text.
        encoding: the LSP position encoding (a :class:`lsprotocol.types.PositionEncodingKind`).
    """

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self._starts = [0]
        for i, char in enumerate(text):
            if char == "\n":
                self._starts.append(i + 1)

    @property
    def line_count(self) -> int:
        """Lines of the text (a final newline starts one more, empty, line)."""
        return len(self._starts)

    def line_text(self, line: int) -> str:
        """Line ``line`` (0-based) without its newline ("" past the end)."""
        if line >= len(self._starts):
            return ""
        start = self._starts[line]
        end = self._starts[line + 1] - 1 if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end]

    def offset(self, line: int, column: int) -> int:
        """Character offset of 0-based ``line`` and character ``column`` (clamped)."""
        line = min(max(line, 0), len(self._starts) - 1)
        return min(self._starts[line] + max(column, 0), len(self.text))

    def offset_of(self, position: types.Position) -> int:
        """Character offset of an LSP position (its column in code units)."""
        line = min(max(position.line, 0), len(self._starts) - 1)
        text = self.line_text(line)
        if self.encoding == types.PositionEncodingKind.Utf32:
            column = position.character
        else:
            column, used = 0, 0
            while column < len(text) and used < position.character:
                used += _units(text[column], self.encoding)
                column += 1
        return self.offset(line, column)

    def position(self, offset: int) -> types.Position:
        """The LSP position of a character offset."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        return types.Position(line, _units(self.text[start:offset], self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        """The LSP range of the characters ``[start, end)``."""
        return types.Range(self.position(start), self.position(end))

    def span_offsets(self, span: Span) -> tuple[int, int]:
        """Character offsets ``[start, end)`` of a parser span (an empty span at its start
        when it has no end)."""
        start = self.offset(span.line - 1, span.column - 1)
        if span.end_line <= 0:
            return start, start
        end = self.offset(span.end_line - 1, span.end_column - 1)
        return start, max(start, end)

    def span_range(self, span: Span) -> types.Range:
        """The LSP range of a parser span (line 1 column 1 for a span without a position)."""
        if span.line <= 0:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        return self.range(*self.span_offsets(span))
