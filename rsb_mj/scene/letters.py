"""Letter textures: black OpenCV Hershey stroke letters on white, drawn procedurally.

The texture is white where there is no stroke, so a material that uses it with a color's
rgba shows black letters on that color. Each letter's ink is centered on the texture and
spans about ``GLYPH_HEIGHT`` of its height with strokes ``STROKE`` of its edge thick, so that a
4 cm block face shows a 3.1 cm letter with 3.8 mm strokes (large enough to read in the head
camera; see :mod:`rsb_mj.scene.legibility`).
"""

from __future__ import annotations

import cv2
import numpy as np

#: Texture edge length [px].
TEXTURE_SIZE = 64
#: Height of the drawn letter (ink, including stroke width) as a fraction of the texture edge.
GLYPH_HEIGHT = 0.8
#: Stroke width as a fraction of the texture edge.
STROKE = 0.09


def letter_image(letter: str, size: int = TEXTURE_SIZE) -> np.ndarray:
    """An RGB uint8 image (size, size, 3): ``letter`` in black strokes, centered, upright."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thickness = max(2, round(size * STROKE))
    target = round(size * GLYPH_HEIGHT)
    scale = cv2.getFontScaleFromHeight(font, target - thickness, thickness)
    canvas = np.full((2 * size, 2 * size), 255, dtype=np.uint8)
    (w, h), _ = cv2.getTextSize(letter, font, scale, thickness)
    cv2.putText(
        canvas,
        letter,
        ((2 * size - w) // 2, (2 * size + h) // 2),
        font,
        scale,
        0,
        thickness,
        cv2.LINE_AA,
    )
    rows, cols = np.nonzero(canvas < 128)
    if rows.size == 0:  # a blank (e.g. a space): plain white
        return np.full((size, size, 3), 255, dtype=np.uint8)
    # Shift the ink's bounding box to the texture's centre.
    dr = (rows.min() + rows.max() + 1) // 2 - size // 2
    dc = (cols.min() + cols.max() + 1) // 2 - size // 2
    gray = canvas[dr : dr + size, dc : dc + size]
    return np.repeat(gray[:, :, None], 3, axis=2)
