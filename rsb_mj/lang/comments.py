"""Where comments go when a task file is laid out again (:mod:`rsb_mj.lang.formatter`).

Every output :class:`Line` remembers the source positions it renders (where its first form
starts, where its last token ends); :func:`place_comments` then puts each comment of the
source (:func:`find_comments`) beside the form it was beside:

* a comment on a line of its own is written on its own line just before the form that
  followed it in the source (so it travels with that form when blocks are reordered, and
  comments before ``(define`` stay at the top); after the last form it ends the file;
* a comment after code (inline, trailing) stays at the end of the line that renders the
  code before it, two spaces after it (several on one line are joined).
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.lang.nodes import Span

__all__ = [
    "Comment",
    "Line",
    "Pos",
    "close",
    "comments_of",
    "end_of",
    "find_comments",
    "head_end",
    "place_comments",
    "start_of",
]

#: A source position ``(line, column)``, 1-based; ``(0, 0)`` for hand-built nodes.
Pos = tuple[int, int]


def start_of(span: Span) -> Pos:
    """Where ``span`` starts."""
    return (span.line, span.column)


def end_of(span: Span) -> Pos:
    """Just after the end of ``span``."""
    return (span.end_line, span.end_column)


def head_end(span: Span, head: str) -> Pos:
    """Approximate end of ``(head`` written at the start of ``span``."""
    return (span.line, span.column + 1 + len(head))


@dataclass
class Line:
    """One output line.

    Attributes:
        text: the line, indentation included.
        start: source position of the form this line begins (None for a continuation).
        end: source position just after the last token this line renders, including the
            ``)`` of enclosing forms closed on it.
    """

    text: str
    start: Pos | None
    end: Pos

    def __post_init__(self) -> None:
        #: End of the line's own form, before ``)`` of enclosing forms were appended.
        self.form_end = self.end

    @property
    def indent(self) -> str:
        """The line's leading spaces."""
        return self.text[: len(self.text) - len(self.text.lstrip(" "))]


def close(lines: list[Line], span: Span) -> list[Line]:
    """Append ``)`` closing the form at ``span`` to the last line."""
    last = lines[-1]
    last.text += ")"
    last.end = max(last.end, end_of(span))
    return lines


@dataclass(frozen=True)
class Comment:
    """A ``;`` comment of the source.

    Attributes:
        line: 1-based line.
        column: 1-based column of the ``;``.
        text: from ``;`` to the end of the line, trailing spaces removed.
        own_line: True when only spaces precede it on its line.
    """

    line: int
    column: int
    text: str
    own_line: bool

    @property
    def pos(self) -> Pos:
        """``(line, column)``."""
        return (self.line, self.column)


def find_comments(text: str) -> list[Comment]:
    """Every ``;`` comment of ``text`` in source order (quoted strings skipped)."""
    out: list[Comment] = []
    for number_, line in enumerate(text.split("\n"), start=1):  # lines as the parser counts them
        in_string = False
        for index, char in enumerate(line):
            if char == '"':
                in_string = not in_string
            elif char == ";" and not in_string:
                own = not line[:index].strip()
                out.append(Comment(number_, index + 1, line[index:].rstrip(), own))
                break
    return out


def comments_of(text: str) -> list[tuple[int, str]]:
    """``(line, comment text)`` of every ``;`` comment in ``text`` (quoted strings skipped)."""
    return [(c.line, c.text) for c in find_comments(text)]


def place_comments(lines: list[Line], comments: list[Comment]) -> list[str]:
    """The text lines with ``comments`` placed beside the forms they were beside."""
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    trailing: list[str] = []
    starts = sorted((ln.start, i) for i, ln in enumerate(lines) if ln.start is not None)
    for c in comments:
        if c.own_line:
            target = next((i for start, i in starts if start > c.pos), None)
            if target is None:
                trailing.append(c.text)
            else:
                before.setdefault(target, []).append(lines[target].indent + c.text)
            continue
        inside = [
            (ln.start, i)
            for i, ln in enumerate(lines)
            if ln.start is not None and ln.start <= c.pos <= ln.form_end
        ]
        if inside:
            target = max(inside)[1]
        else:
            ended = [(ln.form_end, i) for i, ln in enumerate(lines) if ln.form_end <= c.pos]
            target = max(ended)[1] if ended else 0
        after.setdefault(target, []).append(c.text)
    out: list[str] = []
    for i, ln in enumerate(lines):
        out.extend(before.get(i, []))
        texts = after.get(i)
        out.append(ln.text + ("  " + " ".join(texts) if texts else ""))
    return out + trailing
