"""The shipped task files (``tasks/*.bddl``) by name, and their tokens and parenthesized
forms, for the tests that edit or mutate them (:mod:`.test_runtime`, :mod:`.test_runtime_layout`,
``tests/scene/test_layout.py``)."""

from __future__ import annotations

import re
from pathlib import Path

TASKS = Path(__file__).resolve().parents[3] / "tasks"
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in sorted(TASKS.glob("*.bddl"))}

#: One token (a comment, a parenthesis, or an atom) of a task file, for mutating it.
TOKEN = re.compile(r";[^\n]*|[()]|[^ \t\f\r\n();]+")


def tokens_of(text: str) -> list[re.Match[str]]:
    """Every token of ``text`` but its comments."""
    return [m for m in TOKEN.finditer(text) if not m.group().startswith(";")]


def forms_of(text: str) -> list[tuple[int, int, int]]:
    """(start, end, depth) of every parenthesized form."""
    out, stack = [], []
    for m in tokens_of(text):
        if m.group() == "(":
            stack.append(m.start())
        elif m.group() == ")" and stack:
            start = stack.pop()
            out.append((start, m.end(), len(stack)))
    return out
