"""Letter textures: black OpenCV Hershey stroke letters on white, drawn procedurally.

The texture is white where there is no stroke, so a material that uses it with a color's
rgba shows black letters on that color.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Texture edge length [px].
TEXTURE_SIZE = 64


def letter_image(letter: str, size: int = TEXTURE_SIZE) -> np.ndarray:
    """An RGB uint8 image (size, size, 3): ``letter`` in black strokes, centered, upright."""
    img = np.full((size, size, 3), 255, dtype=np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    thickness = max(2, size // 12)
    scale = cv2.getFontScaleFromHeight(font, int(size * 0.62), thickness)
    (w, h), _ = cv2.getTextSize(letter, font, scale, thickness)
    origin = ((size - w) // 2, (size + h) // 2)
    cv2.putText(img, letter, origin, font, scale, (0, 0, 0), thickness, cv2.LINE_AA)
    return img
