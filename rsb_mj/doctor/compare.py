"""Compare a rendered image with its golden: max abs difference, PSNR and a verdict.

Verdicts, per camera and overall (the worst camera):

* ``pass``: no channel of any pixel differs by more than :data:`PASS_MAX_ABS` levels (of
  255): the policy sees what the goldens show;
* ``differs``: the same scene drawn another way (PSNR at least :data:`FAIL_PSNR_DB`):
  rasterization, lighting precision or filtering differ, and success rates may move with
  them (Mesa's softpipe against llvmpipe here: 51-73 dB, up to 118 levels on edge pixels);
* ``fails``: the frame is blank (one colour) or PSNR is below :data:`FAIL_PSNR_DB`: missing
  textures, lights or geometry, a black frame, another scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rsb_mj.errors import RsbError

__all__ = [
    "FAIL_PSNR_DB",
    "PASS_MAX_ABS",
    "VERDICTS",
    "CameraDiff",
    "compare_images",
    "psnr_db",
    "worst",
]

#: Largest per-channel difference [levels of 255] that still passes.
PASS_MAX_ABS = 2
#: PSNR [dB] below which a frame no longer shows the golden's scene.
FAIL_PSNR_DB = 25.0
#: The verdicts, best first.
VERDICTS = ("pass", "differs", "fails")


def psnr_db(image: np.ndarray, golden: np.ndarray) -> float:
    """Peak signal-to-noise ratio [dB] of ``image`` against ``golden`` (uint8, peak 255);
    ``inf`` when they are equal."""
    diff = image.astype(np.float64) - golden.astype(np.float64)
    mse = float(np.mean(diff * diff))
    return math.inf if mse == 0.0 else 10.0 * math.log10(255.0**2 / mse)


@dataclass(frozen=True)
class CameraDiff:
    """One camera's image against its golden.

    Attributes:
        camera: camera name.
        max_abs: largest per-channel difference [levels of 255].
        psnr_db: PSNR [dB], ``inf`` for identical images.
        blank: the rendered image has one colour only (nothing was drawn).
    """

    camera: str
    max_abs: int
    psnr_db: float
    blank: bool

    @property
    def verdict(self) -> str:
        """``pass``, ``differs`` or ``fails`` (see the module docstring)."""
        if self.blank or self.psnr_db < FAIL_PSNR_DB:
            return "fails"
        return "pass" if self.max_abs <= PASS_MAX_ABS else "differs"

    def cell(self) -> str:
        """``3 / 59.2 dB`` (``0 / inf``; ``blank`` for an empty frame)."""
        if self.blank:
            return "blank"
        psnr = "inf" if math.isinf(self.psnr_db) else f"{self.psnr_db:.1f} dB"
        return f"{self.max_abs} / {psnr}"


def compare_images(camera: str, image: np.ndarray, golden: np.ndarray) -> CameraDiff:
    """The :class:`CameraDiff` of ``image`` against ``golden`` (both uint8 (h, w, 3)).

    Raises:
        RsbError: when the shapes differ (the goldens were made at another size).
    """
    if image.shape != golden.shape:
        raise RsbError(
            f"camera {camera}: rendered {image.shape[1]}x{image.shape[0]}, the golden is "
            f"{golden.shape[1]}x{golden.shape[0]}; regenerate the goldens"
        )
    diff = np.abs(image.astype(np.int16) - golden.astype(np.int16))
    blank = bool((image == image.reshape(-1, image.shape[-1])[0]).all())
    return CameraDiff(camera, int(diff.max()), psnr_db(image, golden), blank)


def worst(verdicts: list[str]) -> str:
    """The worst of ``verdicts`` (``pass`` for none)."""
    return max(verdicts, key=VERDICTS.index, default="pass")
