"""How big and how readable the candidates are in a camera image.

Two measurements, both from the compiled scene and a camera's intrinsics (no rendering):

* :func:`project` maps world points [m] to image pixels of a MuJoCo camera (pinhole model:
  focal length ``f = (H / 2) / tan(fovy / 2)`` [px], principal point at the image centre;
  pixel ``(u, v)`` with u to the right and v down, continuous coordinates with the image
  spanning ``[0, W] x [0, H]``).
* :func:`letter_heights` projects the corners of each candidate's letter glyph (the ink
  bounding box of :func:`rsb_mj.scene.letters.letter_image`, as drawn on the top face of the
  candidate's letter geom) and returns its height in pixels: the shorter of the glyph's two
  projected vertical edges, so a foreshortened or tilted letter counts at its smallest.

:func:`policy_scale` is the factor openpi's ``resize_with_pad`` applies when it resizes a
camera image to a policy's square input (224 x 224 for pi0): heights there are
``letter_heights(...) * policy_scale(W, H)``.

Texture frame on a top face (checked against rendered images in the tests): texture column
0 is the face's -x edge (body frame), row 0 is its +y edge, so the letter reads upright to a
camera that looks along body +y.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from rsb_mj import resize
from rsb_mj.errors import SceneError
from rsb_mj.scene.letters import TEXTURE_SIZE, letter_image

if TYPE_CHECKING:
    from rsb_mj.scene.compiler import Scene

#: The square input of openpi's pi0 policies [px].
POLICY_SIZE = 224
#: Smallest letter height [px] required in a 320x240 head image and in the 224x224 policy input.
MIN_HEIGHT_PX = 12.0
MIN_POLICY_HEIGHT_PX = 8.0


def policy_scale(width: int, height: int, size: int = POLICY_SIZE) -> float:
    """Factor from a ``width`` x ``height`` image to ``size`` x ``size`` by resize_with_pad."""
    return min(size / width, size / height)


def resize_with_pad(image: np.ndarray, size: int = POLICY_SIZE) -> tuple[np.ndarray, tuple]:
    """openpi-client's ``resize_with_pad`` to ``size`` x ``size`` (:mod:`rsb_mj.resize`).

    Returns:
        the uint8 (size, size, 3) image and its frame ``(scale, du, dv)``: a continuous pixel
        coordinate (u, v) of ``image`` lands at ``(scale * u + du, scale * v + dv)``.
    """
    h, w = image.shape[:2]
    return resize.resize_with_pad(image, size, size), resize.pad_frame(w, h, size, size)


def intrinsics(model: mujoco.MjModel, camera: str, width: int, height: int) -> np.ndarray:
    """The 3x3 pinhole matrix [px] of ``camera`` for a ``width`` x ``height`` image."""
    fovy = float(model.cam_fovy[model.camera(camera).id])
    f = 0.5 * height / np.tan(np.deg2rad(fovy) / 2)
    return np.array([[f, 0.0, width / 2], [0.0, f, height / 2], [0.0, 0.0, 1.0]])


def project(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    camera: str,
    points: np.ndarray,
    width: int,
    height: int,
) -> np.ndarray:
    """Pixel coordinates (..., 2) [px] of world points (..., 3) [m] in ``camera``.

    ``data`` must have been forwarded (camera poses in ``data.cam_xpos``/``cam_xmat``).

    Raises:
        SceneError: when a point is not in front of the camera.
    """
    cam = model.camera(camera).id
    rot = data.cam_xmat[cam].reshape(3, 3)  # columns: camera x (right), y (up), z (back)
    rel = (np.asarray(points, dtype=float) - data.cam_xpos[cam]) @ rot
    depth = -rel[..., 2]
    if np.any(depth <= 1e-6):
        raise SceneError(f"camera {camera!r}: a point lies behind the camera")
    k = intrinsics(model, camera, width, height)
    u = k[0, 2] + k[0, 0] * rel[..., 0] / depth
    v = k[1, 2] - k[1, 1] * rel[..., 1] / depth
    return np.stack([u, v], axis=-1)


@cache
def glyph_box(letter: str) -> tuple[float, float, float, float]:
    """Ink bounding box of ``letter``'s texture as fractions of the texture edge.

    Returns:
        (col0, row0, col1, row1) in [0, 1]: left, top, right, bottom edges of the ink.
    """
    ink = letter_image(letter)[:, :, 0] < 128
    rows, cols = np.nonzero(ink)
    if rows.size == 0:
        raise SceneError(f"letter {letter!r} draws no ink")
    s = float(TEXTURE_SIZE)
    return (cols.min() / s, rows.min() / s, (cols.max() + 1) / s, (rows.max() + 1) / s)


def top_face_points(
    model: mujoco.MjModel, data: mujoco.MjData, geom: str, tex: np.ndarray
) -> np.ndarray:
    """World points [m] (..., 3) on the top face of box ``geom`` at texture coords ``tex``.

    ``tex`` (..., 2) holds (column, row) fractions of the face texture (see the module
    docstring for the texture frame).
    """
    gid = model.geom(geom).id
    half = model.geom_size[gid]
    rot = data.geom_xmat[gid].reshape(3, 3)
    tex = np.asarray(tex, dtype=float)
    local = np.stack(
        [
            (2 * tex[..., 0] - 1) * half[0],
            (1 - 2 * tex[..., 1]) * half[1],
            np.full(tex.shape[:-1], half[2]),
        ],
        axis=-1,
    )
    return data.geom_xpos[gid] + local @ rot.T


def letter_heights(
    scene: Scene,
    data: mujoco.MjData,
    letters: dict[str, str],
    *,
    camera: str = "head",
    width: int = 320,
    height: int = 240,
) -> dict[str, float]:
    """Projected glyph height [px] of each lettered candidate in ``camera``.

    Args:
        scene: the :class:`~rsb_mj.scene.compiler.Scene` (its model is used).
        data: forwarded data of the scene (e.g. right after ``apply_episode``).
        letters: candidate -> the letter it shows (``{obj: L for L, obj in mapping}``).
        camera, width, height: the camera and image size [px].

    Returns:
        candidate -> the shorter projected vertical glyph edge [px]; candidates without a
        letter geom (everyday objects) are left out.
    """
    model = scene.model
    out: dict[str, float] = {}
    for obj, letter in letters.items():
        geoms = scene._built[obj].letter_geoms
        if not geoms:
            continue
        c0, r0, c1, r1 = glyph_box(letter)
        tex = np.array([[c0, r0], [c0, r1], [c1, r0], [c1, r1]])
        px = project(
            model, data, camera, top_face_points(model, data, geoms[0], tex), width, height
        )
        left = np.linalg.norm(px[0] - px[1])
        right = np.linalg.norm(px[2] - px[3])
        out[obj] = float(min(left, right))
    return out
