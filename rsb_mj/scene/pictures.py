"""Pictures an answer-showing candidate (an ``answer_plate``) shows, drawn from a spec.

A *content spec* (:mod:`rsb_mj.episodes.sources.picture_specs`: kinds, shapes, relations,
text fitting) is a short string that fully determines a picture, e.g. ``"color:red:circle"``,
``"count:5:green"``, ``"clock:3:30"`` or ``"text:Paris"``. :func:`content_image` draws it as
an RGB uint8 image of ``(TEX_H, TEX_W)`` pixels (the plate top is 16 x 12 cm, so one pixel is
0.625 mm); the same spec always gives the same bytes (OpenCV drawing, no randomness).
Images are cached per process.

Image frame: row 0 is the plate's far edge (table +y), column 0 its left edge (table -x), as
the head camera sees it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from rsb_mj.colors import PALETTE
from rsb_mj.episodes.sources.picture_specs import (
    KINDS,
    MAX_LINE_CHARS,
    MAX_TEXT_LINES,
    SHAPES,
    wrap_text,
)
from rsb_mj.errors import SceneError

#: Texture size [px] of a plate top (width along table x, height along table y).
TEX_W, TEX_H = 256, 192
_BG = (255, 255, 255)
_BORDER = (110, 110, 110)


def _rgb(color: str) -> tuple[int, int, int]:
    if color == "black":
        return (20, 20, 20)
    try:
        r, g, b, _ = PALETTE[color]
    except KeyError:
        raise SceneError(
            f"picture color {color!r}; valid choices: black, {', '.join(PALETTE)}"
        ) from None
    return (round(255 * r), round(255 * g), round(255 * b))


def _polygon(shape: str, cx: float, cy: float, r: float) -> list[np.ndarray]:
    """Closed polygons (pixel coordinates) of ``shape`` centred at (cx, cy), radius r."""

    def ring(n: int, radius: float, phase: float) -> np.ndarray:
        a = phase + 2 * math.pi * np.arange(n) / n
        return np.stack([cx + radius * np.cos(a), cy + radius * np.sin(a)], axis=1)

    if shape == "circle":
        return [ring(64, r, 0.0)]
    if shape == "square":
        return [ring(4, r * 1.15, math.pi / 4)]
    if shape == "triangle":
        return [ring(3, r * 1.2, -math.pi / 2) + np.array([0.0, r * 0.2])]
    if shape == "hexagon":
        return [ring(6, r * 1.05, 0.0)]
    if shape == "diamond":
        pts = ring(4, 1.0, -math.pi / 2)
        return [np.stack([cx + (pts[:, 0] - cx) * r * 0.75, cy + (pts[:, 1] - cy) * r * 1.2], 1)]
    if shape == "star":
        outer, inner = ring(5, r * 1.2, -math.pi / 2), ring(5, r * 0.5, -math.pi / 2 + math.pi / 5)
        return [np.stack([outer, inner], axis=1).reshape(-1, 2)]
    if shape == "cross":
        w = r * 0.38
        return [
            np.array([[cx - w, cy - r], [cx + w, cy - r], [cx + w, cy + r], [cx - w, cy + r]]),
            np.array([[cx - r, cy - w], [cx + r, cy - w], [cx + r, cy + w], [cx - r, cy + w]]),
        ]
    if shape == "heart":
        t = np.linspace(0, 2 * math.pi, 80)
        x = 16 * np.sin(t) ** 3
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        s = r / 16.0
        return [np.stack([cx + s * x, cy + s * y + r * 0.05], axis=1)]
    raise SceneError(f"picture shape {shape!r}; valid choices: {', '.join(SHAPES)}")


def _fill(img: np.ndarray, shape: str, cx: float, cy: float, r: float, color: str) -> None:
    for p in _polygon(shape, cx, cy, r):  # one call each: overlapping parts stay filled
        cv2.fillPoly(img, [np.round(p * 8).astype(np.int32)], _rgb(color), cv2.LINE_AA, shift=3)


#: Dot centres (fractions of the drawing square, row-major) for 1..9 dots, as on dice.
_DOTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.2, 0.2), (0.8, 0.8)),
    3: ((0.2, 0.2), (0.5, 0.5), (0.8, 0.8)),
    4: ((0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8)),
    5: ((0.2, 0.2), (0.8, 0.2), (0.5, 0.5), (0.2, 0.8), (0.8, 0.8)),
    6: ((0.2, 0.2), (0.8, 0.2), (0.2, 0.5), (0.8, 0.5), (0.2, 0.8), (0.8, 0.8)),
    7: ((0.2, 0.2), (0.8, 0.2), (0.2, 0.5), (0.5, 0.5), (0.8, 0.5), (0.2, 0.8), (0.8, 0.8)),
    8: tuple((x, y) for y in (0.2, 0.5, 0.8) for x in (0.2, 0.5, 0.8) if (x, y) != (0.5, 0.5)),
    9: tuple((x, y) for y in (0.2, 0.5, 0.8) for x in (0.2, 0.5, 0.8)),
}


def _text(img: np.ndarray, text: str) -> None:
    lines = wrap_text(text)
    if lines is None:
        raise SceneError(
            f"text {text!r} does not fit a plate ({MAX_TEXT_LINES} lines of "
            f"{MAX_LINE_CHARS} characters)"
        )
    font, thick = cv2.FONT_HERSHEY_DUPLEX, 3
    longest = max(lines, key=len)
    scale = 3.0
    while scale > 0.5:
        (w, h), _ = cv2.getTextSize(longest, font, scale, thick)
        total = h * len(lines) * 1.6
        if w <= TEX_W - 24 and total <= TEX_H - 24:
            break
        scale -= 0.05
    (_, h), _ = cv2.getTextSize("Ag", font, scale, thick)
    gap = h * 1.6
    top = (TEX_H - gap * len(lines)) / 2 + gap * 0.8
    for i, line in enumerate(lines):
        (w, _), _ = cv2.getTextSize(line, font, scale, thick)
        org = (round((TEX_W - w) / 2), round(top + i * gap))
        cv2.putText(img, line, org, font, scale, (0, 0, 0), thick, cv2.LINE_AA)


def _clock(img: np.ndarray, hour: int, minute: int) -> None:
    cx, cy, r = TEX_W / 2, TEX_H / 2, TEX_H * 0.44
    cv2.circle(img, (round(cx), round(cy)), round(r), (20, 20, 20), 5, cv2.LINE_AA)
    for k in range(12):
        a = 2 * math.pi * k / 12
        inner = 0.78 if k % 3 == 0 else 0.86
        p0 = (round(cx + inner * r * math.sin(a)), round(cy - inner * r * math.cos(a)))
        p1 = (round(cx + 0.95 * r * math.sin(a)), round(cy - 0.95 * r * math.cos(a)))
        cv2.line(img, p0, p1, (20, 20, 20), 4 if k % 3 == 0 else 2, cv2.LINE_AA)
    a_min = 2 * math.pi * minute / 60
    a_hour = 2 * math.pi * ((hour % 12) + minute / 60) / 12
    for angle, length, width, color in (
        (a_hour, 0.5, 9, (20, 20, 20)),
        (a_min, 0.8, 5, (200, 30, 30)),
    ):
        tip = (round(cx + length * r * math.sin(angle)), round(cy - length * r * math.cos(angle)))
        cv2.line(img, (round(cx), round(cy)), tip, color, width, cv2.LINE_AA)
    cv2.circle(img, (round(cx), round(cy)), 6, (20, 20, 20), -1, cv2.LINE_AA)


def _draw(img: np.ndarray, spec: str) -> None:
    kind, *args = spec.split(":")
    cx, cy, r = TEX_W / 2, TEX_H / 2, TEX_H * 0.36
    if kind == "color":  # color:COLOR:SHAPE
        _fill(img, args[1], cx, cy, r, args[0])
    elif kind == "shape":  # shape:SHAPE:COLOR
        _fill(img, args[0], cx, cy, r, args[1])
    elif kind == "count":  # count:N:COLOR
        n, side = int(args[0]), TEX_H * 0.8
        for fx, fy in _DOTS[n]:
            x, y = cx - side / 2 + fx * side, cy - side / 2 + fy * side
            _fill(img, "circle", x, y, TEX_H * 0.075, args[1])
    elif kind == "size":  # size:FRACTION:SHAPE:COLOR (radius as a fraction of the height)
        _fill(img, args[1], cx, cy, float(args[0]) * TEX_H, args[2])
    elif kind == "spatial":  # spatial:RELATION:SHAPE1:COLOR1:SHAPE2:COLOR2
        rel, s1, c1, s2, c2 = args
        dx, dy = {"left": (-1, 0), "right": (1, 0), "above": (0, -1), "below": (0, 1)}[rel]
        off_x, off_y, rr = TEX_W * 0.24, TEX_H * 0.25, TEX_H * 0.19
        _fill(img, s1, cx + dx * off_x, cy + dy * off_y, rr, c1)
        _fill(img, s2, cx - dx * off_x, cy - dy * off_y, rr, c2)
    elif kind == "clock":  # clock:H:MM
        _clock(img, int(args[0]), int(args[1]))
    elif kind == "text":  # text:ANY TEXT (may contain ':')
        _text(img, spec.split(":", 1)[1])
    else:
        raise SceneError(f"picture spec {spec!r}: kind {kind!r}; valid choices: {', '.join(KINDS)}")


@lru_cache(maxsize=4096)
def _cached(spec: str) -> bytes:
    img = np.full((TEX_H, TEX_W, 3), _BG, dtype=np.uint8)
    try:
        _draw(img, spec)
    except (IndexError, ValueError, KeyError) as exc:
        raise SceneError(f"picture spec {spec!r} is malformed: {exc}") from None
    cv2.rectangle(img, (0, 0), (TEX_W - 1, TEX_H - 1), _BORDER, 4)
    return img.tobytes()


def content_image(spec: str) -> np.ndarray:
    """The picture of ``spec``: RGB uint8 (TEX_H, TEX_W, 3), row 0 the plate's far edge.

    Raises:
        SceneError: for an unknown kind, shape or color, or text that does not fit.
    """
    return np.frombuffer(_cached(spec), dtype=np.uint8).reshape(TEX_H, TEX_W, 3).copy()


__all__ = ["TEX_H", "TEX_W", "content_image"]
