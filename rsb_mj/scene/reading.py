"""Read each candidate's letter (or color) from a camera image, knowing where it stands.

The check behind ``rsb legibility``: if a simple reader can tell every candidate apart in the
head image, a policy's failure there is not a perception failure.

Lettered candidates (``letter_block``, ``playing_card``): the square of side ``PATCH`` [m]
around the candidate's position, in the plane of its top face and aligned with the table
axes, is rectified from the image with the camera model (a homography; 1 mm per pixel, columns
along table +x, rows along table -y). Each allowed letter's texture, drawn as the scene draws
it (:func:`rsb_mj.scene.letters.letter_image`) at the face's size and turned by every yaw in
``YAWS`` (the reader does not know the candidate's yaw), is matched to the patch by normalized
cross-correlation (``cv2.TM_CCOEFF_NORMED``) over shifts of up to ``SHIFT`` mm; the letter of
the best match is the read. Intensity is the largest of R, G, B, so black ink stands out on
every palette color.

Objects without letters (cans, toy cars, ...): the task's instruction names them by color
("A is the purple can"), so the read is the color: the median chromaticity ``rgb / sum(rgb)``
of the bright pixels around the candidate's projected center, matched to the nearest of the
episode's colors (:data:`rsb_mj.colors.PALETTE`).

Candidates that show their answers (answer plates, :mod:`rsb_mj.scene.display`): the top
face is rectified from the image (its corners projected with the camera model) into a
``PATCH_W`` x ``PATCH_H`` patch and matched by normalized cross-correlation over the RGB
pixels against *reference pictures*: the episode's own plus others of its source, so the
reader must recognise the picture, not only tell two apart. An answer counts as read when
its own picture wins by ``MIN_MARGIN``.

:data:`READERS` holds one reader per display kind; :func:`read_displays` reads every
candidate with its kind's reader (:func:`read_candidates`: letters and colors only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import cv2
import mujoco
import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE
from rsb_mj.episodes.episode import Episode
from rsb_mj.lang.display import display_kind
from rsb_mj.scene.legibility import project
from rsb_mj.scene.letters import letter_image
from rsb_mj.scene.pictures import content_image

if TYPE_CHECKING:
    from rsb_mj.scene.compiler import Scene

#: Edge [m] of the rectified square around a candidate (wider than a block face's diagonal).
PATCH = 0.072
#: Resolution of the rectified patch [m per px].
MM = 0.001
#: Edge [px] of the letter template: the central part of the face, inside it at every yaw.
TEMPLATE = 28
#: Largest shift [px = mm] of the template from the candidate's projected center.
SHIFT = 5
#: Yaws [rad] the reader tries (the tasks' ``:yaw_range`` is (-0.3, 0.3)).
YAWS = tuple(np.round(np.arange(-0.40, 0.401, 0.1), 3))
#: Half edge [px] of the image window sampled for an object's color.
COLOR_WINDOW = 3
#: Size [px] of a rectified answer patch (a 16 x 12 cm plate face: 2.5 mm per pixel).
PATCH_W, PATCH_H = 64, 48
#: Smallest NCC margin of an answer's own picture over the runner-up.
MIN_MARGIN = 0.02
#: Display kind -> the smallest margin a right read needs to count (none: any).
MIN_MARGINS: dict[str, float] = {"answer": MIN_MARGIN}


@dataclass(frozen=True)
class Read:
    """One candidate's read.

    Attributes:
        candidate: the candidate object's name.
        kind: ``"letter"``, ``"color"`` or ``"answer"`` (the display kind read).
        truth: the letter it shows, the color it has or the picture spec it shows.
        read: what the reader saw.
        score: NCC of the best letter (-1..1), or minus the chromaticity distance of the
            best color.
        margin: best score minus the best score of any other choice.
    """

    candidate: str
    kind: str
    truth: str
    read: str
    score: float
    margin: float

    @property
    def correct(self) -> bool:
        """Whether the read matches the truth."""
        return self.read == self.truth

    @property
    def accepted(self) -> bool:
        """Whether the read counts as right: it matches the truth, by at least its kind's
        :data:`MIN_MARGINS` (an answer's own picture by ``MIN_MARGIN``)."""
        return self.correct and self.margin >= MIN_MARGINS.get(self.kind, float("-inf"))


@cache
def _templates(letter: str, face_mm: tuple[int, int]) -> np.ndarray:
    """(len(YAWS), TEMPLATE, TEMPLATE) float32: ``letter`` on a face of ``face_mm`` (x, y)
    millimetres, turned by each yaw, the central TEMPLATE x TEMPLATE mm."""
    tex = letter_image(letter)[:, :, 0]
    face = cv2.resize(tex, face_mm, interpolation=cv2.INTER_AREA).astype(np.float32)
    side = 2 * max(face_mm)
    canvas = np.full((side, side), 255.0, dtype=np.float32)
    y0, x0 = (side - face_mm[1]) // 2, (side - face_mm[0]) // 2
    canvas[y0 : y0 + face_mm[1], x0 : x0 + face_mm[0]] = face
    out = np.empty((len(YAWS), TEMPLATE, TEMPLATE), dtype=np.float32)
    c = side / 2
    lo = round(c - TEMPLATE / 2)
    for i, yaw in enumerate(YAWS):
        rot = cv2.getRotationMatrix2D((c, c), float(np.rad2deg(yaw)), 1.0)
        turned = cv2.warpAffine(
            canvas, rot, (side, side), flags=cv2.INTER_LINEAR, borderValue=255.0
        )
        # The camera sees the face at about 2 mm per pixel: blur the template alike.
        turned = cv2.GaussianBlur(turned, (0, 0), 1.0)
        out[i] = turned[lo : lo + TEMPLATE, lo : lo + TEMPLATE]
    return out


#: Frame (scale, du, dv) of an image that is the camera's own rendering.
IDENTITY = (1.0, 0.0, 0.0)


@dataclass(frozen=True)
class View:
    """Where an image comes from: ``camera`` rendered at ``width`` x ``height`` [px], then
    mapped by ``frame`` = (scale, du, dv): camera pixel (u, v) is image pixel
    ``(scale * u + du, scale * v + dv)`` (see :func:`~rsb_mj.scene.legibility.resize_with_pad`).
    """

    camera: str = "head"
    width: int = 320
    height: int = 240
    frame: tuple[float, float, float] = IDENTITY

    def pixels(self, model: mujoco.MjModel, data: mujoco.MjData, points: np.ndarray) -> np.ndarray:
        """Image pixel coordinates (..., 2) of world points (..., 3) [m]."""
        scale, du, dv = self.frame
        px = project(model, data, self.camera, points, self.width, self.height)
        return px * scale + np.array([du, dv])


def rectify(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    image: np.ndarray,
    center: np.ndarray,
    view: View,
) -> np.ndarray:
    """The PATCH x PATCH square around world point ``center`` [m] (horizontal plane) as a
    float32 (N, N, 3) image at ``MM`` per pixel: columns along +x, rows along -y."""
    n = round(PATCH / MM)
    h = PATCH / 2
    corners = np.array(center, dtype=float) + np.array(
        [[-h, h, 0.0], [h, h, 0.0], [h, -h, 0.0], [-h, -h, 0.0]]
    )
    src = view.pixels(model, data, corners)
    # Pixel centres: continuous coordinate u maps to array index u - 0.5.
    src = (src - 0.5).astype(np.float32)
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float32) - 0.5
    hom = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        image.astype(np.float32),
        hom,
        (n, n),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def read_letter(
    patch: np.ndarray, letters: tuple[str, ...], face_mm: tuple[int, int]
) -> tuple[str, float, float]:
    """(best letter, its NCC, margin over the runner-up) for a rectified patch."""
    gray = patch.max(axis=2)
    n = gray.shape[0]
    lo = n // 2 - TEMPLATE // 2 - SHIFT
    window = np.ascontiguousarray(
        gray[lo : lo + TEMPLATE + 2 * SHIFT, lo : lo + TEMPLATE + 2 * SHIFT]
    )
    scores = {}
    for letter in letters:
        best = -1.0
        for tpl in _templates(letter, face_mm):
            best = max(best, float(cv2.matchTemplate(window, tpl, cv2.TM_CCOEFF_NORMED).max()))
        scores[letter] = best
    ranked = sorted(scores, key=scores.get, reverse=True)
    return ranked[0], scores[ranked[0]], scores[ranked[0]] - scores[ranked[1]]


def _chroma(rgb: np.ndarray) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=float)
    return rgb / max(rgb.sum(), 1e-9)


def read_color(
    image: np.ndarray, pixel: np.ndarray, colors: tuple[str, ...]
) -> tuple[str, float, float]:
    """(nearest color, minus its chromaticity distance, margin) around image ``pixel``."""
    u, v = (np.asarray(pixel) - 0.5).round().astype(int)
    h, w = image.shape[:2]
    win = (
        image[
            max(v - COLOR_WINDOW, 0) : min(v + COLOR_WINDOW + 1, h),
            max(u - COLOR_WINDOW, 0) : min(u + COLOR_WINDOW + 1, w),
        ]
        .reshape(-1, 3)
        .astype(float)
    )
    bright = win[win.max(axis=1) >= 40] if (win.max(axis=1) >= 40).any() else win
    seen = _chroma(np.median(bright, axis=0))
    dist = {c: float(np.linalg.norm(seen - _chroma(PALETTE[c][:3]))) for c in colors}
    ranked = sorted(dist, key=dist.get)
    margin = dist[ranked[1]] - dist[ranked[0]] if len(ranked) > 1 else 1.0
    return ranked[0], -dist[ranked[0]], margin


def read_candidates(
    scene: Scene,
    data: mujoco.MjData,
    image: np.ndarray,
    episode: Episode,
    view: View | None = None,
) -> list[Read]:
    """Read every candidate of ``episode`` from ``image`` (a view of ``data``).

    Args:
        scene: the :class:`~rsb_mj.scene.compiler.Scene` the episode was applied to.
        data: its forwarded data (candidate positions; orientations are not used).
        image: the uint8 image of ``view``: the head camera's rendering (default: a
            ``image.shape`` head image) or, e.g., its 224x224 policy input.
        episode: the episode (which letters and colors there are to choose from).
        view: the camera, its rendered size and the image's frame.

    Returns:
        one :class:`Read` per candidate, in ``scene.candidates`` order.
    """
    if view is None:
        view = View("head", image.shape[1], image.shape[0])
    return [
        (letter_read if scene._built[obj].letter_geoms else color_read)(
            scene, data, image, episode, obj, view
        )
        for obj in scene.candidates
    ]


def letter_read(
    scene: Scene, data: mujoco.MjData, image: np.ndarray, episode: Episode, obj: str, view: View
) -> Read:
    """Read the letter lettered candidate ``obj`` shows (see the module docstring)."""
    model = scene.model
    gid = model.geom(scene._built[obj].letter_geoms[0]).id
    half = model.geom_size[gid]
    center = data.geom_xpos[gid] + np.array([0.0, 0.0, half[2]])
    face = (round(2 * half[0] / MM), round(2 * half[1] / MM))
    patch = rectify(model, data, image, center, view)
    read, score, margin = read_letter(patch, LETTERS[len(scene.candidates)], face)
    letter_of = {o: letter for letter, o in episode.mapping.items()}
    return Read(obj, "letter", letter_of[obj], read, score, margin)


def color_read(
    scene: Scene, data: mujoco.MjData, image: np.ndarray, episode: Episode, obj: str, view: View
) -> Read:
    """Read the color of candidate ``obj`` among the episode's colors."""
    model = scene.model
    colors = tuple(sorted({episode.colors[c] for c in scene.candidates}))
    pixel = view.pixels(model, data, data.xpos[model.body(obj).id])
    read, score, margin = read_color(image, pixel, colors)
    return Read(obj, "color", episode.colors[obj], read, score, margin)


# ---- answers (pictures an answer-showing candidate shows) -----------------------------------


def _unit(img: np.ndarray) -> np.ndarray:
    v = img.astype(np.float64).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


@cache
def _reference(spec: str) -> np.ndarray:
    small = cv2.resize(content_image(spec), (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)
    return _unit(small)


def face_patch(
    model: mujoco.MjModel, data: mujoco.MjData, image: np.ndarray, geom: str, view: View
) -> np.ndarray:
    """The rectified top face of box ``geom`` (PATCH_H, PATCH_W, 3) from ``image`` seen as
    ``view``; row 0 at the face's far (+y) edge, column 0 at its -x edge."""
    gid = model.geom(geom).id
    hx, hy, hz = model.geom_size[gid]
    rot = data.geom_xmat[gid].reshape(3, 3)
    local = np.array([[-hx, hy, hz], [hx, hy, hz], [hx, -hy, hz], [-hx, -hy, hz]])
    corners = data.geom_xpos[gid] + local @ rot.T
    src = (view.pixels(model, data, corners) - 0.5).astype(np.float32)
    dst = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32) - 0.5
    hom = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        image, hom, (PATCH_W, PATCH_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def read_answer(
    scene: Scene,
    data: mujoco.MjData,
    image: np.ndarray,
    episode: Episode,
    obj: str,
    view: View,
    references: tuple[str, ...] = (),
) -> Read:
    """Read which picture answer-showing candidate ``obj`` shows: the best of its episode's
    pictures and ``references`` by NCC; ``margin``: its own picture over the best other
    one when it won, else the winner's over the runner-up (negative: not read)."""
    letter = {o: k for k, o in episode.mapping.items()}[obj]
    shown = episode.extra["plates"]
    truth = str(shown[letter])
    refs = list(dict.fromkeys((*map(str, shown.values()), *references)))
    model = scene.model
    body = model.body(obj).id
    geom = model.geom(int(model.body_geomadr[body])).name  # the face: the body's first box
    patch = _unit(face_patch(model, data, image, geom, view))
    scores = sorted(((float(patch @ _reference(r)), r) for r in refs), reverse=True)
    best, runner = scores[0], scores[1]
    own = next(s for s, r in scores if r == truth)
    rival = max(s for s, r in scores if r != truth)
    margin = own - rival if best[1] == truth else best[0] - runner[0]
    return Read(obj, "answer", truth, best[1], best[0], margin)


#: ``reader(scene, data, image, episode, obj, view, references) -> Read`` per display kind.
READERS: dict[str, Callable[..., Read]] = {
    "letter": lambda scene, data, image, episode, obj, view, _: letter_read(
        scene, data, image, episode, obj, view
    ),
    "color": lambda scene, data, image, episode, obj, view, _: color_read(
        scene, data, image, episode, obj, view
    ),
    "answer": read_answer,
}


def read_displays(
    scene: Scene,
    data: mujoco.MjData,
    image: np.ndarray,
    episode: Episode,
    view: View | None = None,
    references: tuple[str, ...] = (),
) -> list[Read]:
    """Read every candidate of ``episode`` from ``image`` by its display kind
    (:func:`rsb_mj.lang.display.display_kind`).

    Args:
        scene, data: the scene the episode was applied to and its forwarded data.
        image: the uint8 image of ``view`` (default: a head image of ``image.shape``).
        references: other pictures answer-showing candidates are compared with.

    Returns:
        one :class:`~rsb_mj.scene.reading.Read` per candidate, in candidate order.
    """
    if view is None:
        view = View("head", image.shape[1], image.shape[0])
    return [
        READERS[display_kind(scene.problem, obj)](
            scene, data, image, episode, obj, view, references
        )
        for obj in scene.candidates
    ]
