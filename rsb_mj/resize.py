"""openpi-client's ``image_tools.resize_with_pad``: the one implementation in rsb_mj.

The openpi client (:mod:`rsb_mj.policies.openpi`) resizes every camera image with it before
sending, and the legibility checks (:mod:`rsb_mj.scene.legibility`) measure letters in the
image it produces. Same arithmetic as openpi-client 0.1.2: ``ratio = max(W / width,
H / height)``, the resized size truncated to ints, PIL bilinear resampling, pasted on black
at the truncated half padding; an image already of the target size is returned as it is.
``tests/policies/test_openpi_wire.py`` checks it pixel for pixel against openpi-client.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pad_frame", "resize_with_pad"]


def pad_frame(width: int, height: int, out_width: int, out_height: int) -> tuple[float, ...]:
    """Where a ``width`` x ``height`` [px] image lands in :func:`resize_with_pad`'s output.

    Returns:
        ``(scale, du, dv)``: a continuous pixel coordinate ``(u, v)`` of the input lands at
        ``(scale * u + du, scale * v + dv)`` of the ``out_width`` x ``out_height`` output.
    """
    if (width, height) == (out_width, out_height):
        return (1.0, 0.0, 0.0)
    ratio = max(width / out_width, height / out_height)
    new_h, new_w = int(height / ratio), int(width / ratio)
    left = max(0, int((out_width - new_w) / 2))
    top = max(0, int((out_height - new_h) / 2))
    return (new_w / width, float(left), float(top))


def resize_with_pad(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """An HWC uint8 image resized into ``height`` x ``width`` [px], aspect ratio kept,
    centred on black (see the module docstring)."""
    # heavy: Pillow, only for openpi's resize
    from PIL import Image

    h, w = image.shape[:2]
    if (h, w) == (height, width):
        return image
    ratio = max(w / width, h / height)
    new_h, new_w = int(h / ratio), int(w / ratio)
    resized = Image.fromarray(image).resize((new_w, new_h), resample=Image.BILINEAR)
    canvas = Image.new(resized.mode, (width, height), 0)
    canvas.paste(resized, (max(0, int((width - new_w) / 2)), max(0, int((height - new_h) / 2))))
    return np.asarray(canvas)
