"""Picture specs: the short strings that say what an answer-showing candidate draws.

A spec names a kind and its arguments, ``"color:red:circle"``, ``"shape:triangle:blue"``,
``"count:5:green"``, ``"size:0.40:square:purple"``, ``"spatial:above:circle:red:square:blue"``,
``"clock:3:30"`` or ``"text:Paris"``. Specs are the data of the question sources whose
answers are pictures (:mod:`rsb_mj.episodes.sources.act2answer`, which makes them); the
scene draws them (:mod:`rsb_mj.scene.pictures`) from this vocabulary, so the sources never
import the scene. Pure Python.
"""

from __future__ import annotations

#: Shapes a spec may name.
SHAPES = ("circle", "square", "triangle", "star", "hexagon", "cross", "diamond", "heart")
#: Spec kinds.
KINDS = ("color", "shape", "count", "size", "spatial", "clock", "text")
#: Relations a spatial spec may name (the first shape relative to the second).
RELATIONS = ("left", "right", "above", "below")
#: Largest text a plate shows: lines and characters per line.
MAX_TEXT_LINES, MAX_LINE_CHARS = 2, 9


def wrap_text(text: str) -> list[str] | None:
    """``text`` in at most ``MAX_TEXT_LINES`` lines of ``MAX_LINE_CHARS`` characters (broken
    at spaces), or None when it does not fit."""
    words, lines = text.split(), [""]
    for word in words:
        if len(word) > MAX_LINE_CHARS:
            return None
        joined = f"{lines[-1]} {word}".strip()
        if len(joined) <= MAX_LINE_CHARS:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines if len(lines) <= MAX_TEXT_LINES and lines[0] else None


__all__ = ["KINDS", "MAX_LINE_CHARS", "MAX_TEXT_LINES", "RELATIONS", "SHAPES", "wrap_text"]
