"""Where the cursor stands in a task file: the token under it and the forms around it.

Completion, hover and go-to-definition ask the same question of text that is often
mid-edit and does not parse: which word is under the cursor, and which forms enclose it?
This module answers it from the s-expression structure alone (parentheses, words, strings
and ``;`` comments, as the grammar's terminals delimit them); what each position *means*
is decided by the callers from the grammar (:mod:`rsb_mj.lsp.grammar`) and the vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: One token: a parenthesis, a comment, a string (with its quotes) or a word.
_TOKEN = re.compile(
    r'(?P<open>\()|(?P<close>\))|(?P<comment>;[^\n]*)|(?P<string>"[^"\n]*"?)'
    r'|(?P<word>[^\s()";]+)'
)


@dataclass(frozen=True)
class Token:
    """A token of the text: ``kind`` is ``open``, ``close``, ``comment``, ``string`` or
    ``word``; ``start`` and ``end`` are character offsets (end exclusive)."""

    kind: str
    text: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """Every token of ``text`` in order."""
    return [Token(m.lastgroup or "", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


@dataclass
class Form:
    """An open parenthesized form around the cursor.

    Attributes:
        start: offset of its ``(``.
        items: its words and strings before the cursor (a nested form counts as ``"()"``),
            the first being its head (``":init"``, ``"On"``, a region's name ...).
        nested: for each nested form among ``items``, its head word (lower case) or "".
    """

    start: int
    items: list[str] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)

    @property
    def head(self) -> str:
        """The first word, lower case ("" when none yet or a nested form comes first)."""
        return self.items[0].lower() if self.items and self.items[0] != "()" else ""


@dataclass(frozen=True)
class Cursor:
    """The cursor's surroundings.

    Attributes:
        offset: the cursor's character offset.
        token: the word or string the cursor is in or just after, or None.
        prefix: the part of ``token`` before the cursor ("" when not in a token).
        forms: the open forms around the cursor, outermost first.
        in_comment: True inside a ``;`` comment (nothing to complete or explain there).
    """

    offset: int
    token: Token | None
    prefix: str
    forms: tuple[Form, ...]
    in_comment: bool = False

    def head(self, depth: int = -1) -> str:
        """The head of the form ``depth`` levels out (-1: the innermost), "" if none."""
        if len(self.forms) < -depth:
            return ""
        return self.forms[depth].head

    @property
    def index(self) -> int:
        """The position the cursor's word takes in the innermost form (0: its head)."""
        if not self.forms:
            return 0
        return len(self.forms[-1].items)

    @property
    def previous(self) -> str:
        """The item before the cursor's word in the innermost form ("" if none)."""
        items = self.forms[-1].items if self.forms else []
        return items[-1] if items else ""


def cursor_at(text: str, offset: int) -> Cursor:
    """The :class:`Cursor` at character ``offset`` of ``text``."""
    stack: list[Form] = []
    current: Token | None = None
    for tok in tokens(text):
        if tok.start >= offset:
            if tok.start == offset and tok.kind in ("word", "string"):
                current = tok  # the cursor is at its first character
            break
        if tok.kind == "comment":
            if tok.end >= offset:
                return Cursor(offset, None, "", tuple(stack), in_comment=True)
            continue
        if tok.kind in ("word", "string") and tok.end >= offset:
            current = tok  # the cursor is inside or right after it: not an item yet
            break
        if tok.kind == "open":
            stack.append(Form(tok.start))
        elif tok.kind == "close":
            if stack:
                closed = stack.pop()
                if stack:
                    stack[-1].items.append("()")
                    stack[-1].nested.append(closed.head)
        elif stack:
            stack[-1].items.append(tok.text)
    prefix = text[current.start : offset] if current is not None else ""
    return Cursor(offset, current, prefix, tuple(stack))


def word_at(text: str, offset: int) -> Token | None:
    """The word or string containing ``offset`` or ending at it, or None."""
    return cursor_at(text, offset).token


@dataclass(frozen=True)
class Span:
    """A closed parenthesized form: offsets of its ``(`` and just after its ``)``, its head
    word ("" if none) and the offset where its items after the head begin."""

    start: int
    end: int
    head: str
    body: int


def forms(text: str) -> list[Span]:
    """Every closed form of ``text``, ordered by where it starts."""
    out: list[Span] = []
    stack: list[tuple[int, str, int]] = []
    pending: list[bool] = []  # per open form: is the next word its head?
    for tok in tokens(text):
        if tok.kind == "open":
            stack.append((tok.start, "", tok.end))
            pending.append(True)
        elif tok.kind == "close" and stack:
            start, head, body = stack.pop()
            pending.pop()
            out.append(Span(start, tok.end, head, body))
            if pending:
                pending[-1] = False
        elif tok.kind in ("word", "string") and stack and pending[-1]:
            start, _, _ = stack[-1]
            stack[-1] = (start, tok.text if tok.kind == "word" else "", tok.end)
            pending[-1] = False
    return sorted(out, key=lambda s: s.start)
