"""Which option a policy's text names (for policies that write a rationale).

A policy may return text with its actions (an openpi server's ``text`` / ``reasoning``
reply keys, or a Python policy's ``text`` attribute). The harness keeps the last text of an
episode and reads the option it names with :func:`text_choice`:

1. the last explicit letter: ``"(C)"``, ``"option C"``, ``"answer: C"``, ``"answer is C"``,
   ``"choice C"``, ``"letter C"``, ``"C is the"`` (letters of the episode only, upper case);
2. else the option whose text appears in it, when exactly one does (whole words, case
   insensitive, longest options first so "12" inside "120" does not count);
3. else None (no choice, or an ambiguous one).

Text in ``<think>...</think>`` counts like any other text.
"""

from __future__ import annotations

import re

from rsb_mj.choices import LETTERS

#: Longest text kept in a record [characters].
MAX_TEXT_CHARS = 4000


def _letter_patterns(letters: tuple[str, ...]) -> re.Pattern[str]:
    group = "[" + "".join(letters) + "]"
    return re.compile(
        rf"\(({group})\)"
        rf"|\b(?:[Oo]ption|[Aa]nswer|[Cc]hoice|[Ll]etter)(?:\s+is)?\s*:?\s*\(?({group})\b"
        rf"|\b({group}) is the\b"
    )


def text_choice(text: str | None, options: tuple[str, ...]) -> str | None:
    """The option letter ``text`` names, or None (see the module docstring)."""
    if not text:
        return None
    letters = LETTERS[len(options)]
    found = [next(g for g in m.groups() if g) for m in _letter_patterns(letters).finditer(text)]
    if found:
        return found[-1]
    lowered = text.lower()
    hits = []
    for letter, option in sorted(zip(letters, options, strict=True), key=lambda lo: -len(lo[1])):
        pattern = rf"(?<![\w.]){re.escape(option.lower())}(?![\w])"
        if option.strip() and re.search(pattern, lowered):
            hits.append(letter)
            lowered = re.sub(pattern, " ", lowered)
    return hits[0] if len(hits) == 1 else None
