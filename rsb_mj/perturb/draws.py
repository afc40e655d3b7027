"""The random draws of the visual perturbations (:mod:`rsb_mj.perturb.visual`): a light's
color temperature as rgb, a light's tilted direction, and a scene color kept away from gray
and from the candidates' colors. Every draw takes the generator it is handed."""

from __future__ import annotations

import numpy as np

#: The color temperature [K] whose rgb is (1, 1, 1).
NEUTRAL_K = 6500.0
#: The largest tilt of a light's direction [rad].
MAX_TILT_RAD = np.deg2rad(20.0)
#: The smallest channel spread (rgb in [0, 1]) of a scene color: below it, near-gray.
MIN_CHROMA = 0.15
#: The smallest Euclidean rgb distance of a scene color from any candidate's color.
MIN_CANDIDATE_DISTANCE = 0.3


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Relative rgb of a black body at ``kelvin`` [K] (Tanner Helland's fit of Mitchell
    Charity's table), divided by that of 6500 K so 6500 K is (1, 1, 1); max channel <= 1."""

    def raw(k: float) -> np.ndarray:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = (
            99.4708025861 * np.log(t) - 161.1195681661
            if t <= 66
            else 288.1221695283 * (t - 60) ** -0.0755148492
        )
        b = (
            255.0
            if t >= 66
            else (0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307)
        )
        return np.clip([r, g, b], 1.0, 255.0)

    rgb = raw(kelvin) / raw(NEUTRAL_K)
    return rgb / rgb.max()


def tilt_direction(direction: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``direction`` rotated by an angle ~ U(0, 20 deg) about a random perpendicular axis."""
    d = direction / np.linalg.norm(direction)
    axis = np.cross(d, rng.normal(size=3))
    axis /= np.linalg.norm(axis)
    angle = rng.uniform(0.0, MAX_TILT_RAD)
    out = (
        d * np.cos(angle)
        + np.cross(axis, d) * np.sin(angle)
        + axis * np.dot(axis, d) * (1 - np.cos(angle))
    )
    return out / np.linalg.norm(out)


def scene_color(
    rng: np.random.Generator, low: float, high: float, avoid: list[np.ndarray]
) -> np.ndarray:
    """An rgb with channels ~ U(low, high), redrawn while near-gray (spread < 0.15) or
    nearer than 0.3 (Euclidean, rgb in [0, 1]) to a color in ``avoid``."""
    for _ in range(200):
        rgb = rng.uniform(low, high, size=3)
        far = all(np.linalg.norm(rgb - a) >= MIN_CANDIDATE_DISTANCE for a in avoid)
        if rgb.max() - rgb.min() >= MIN_CHROMA and far:
            return rgb
    return rgb  # a range too narrow to leave gray: keep the last draw
