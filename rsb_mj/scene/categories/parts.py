"""Stand-in objects as data: primitive parts, the shape builders that make them, and the
category that builds a :class:`Standin` spec (ours: no third-party meshes or textures).

A stand-in is a tuple of :class:`Part` (boxes, cylinders, spheres, capsules, ellipsoids and
surfaces of revolution) authored in the object's frame with **z measured up from the table**
(the object's bottom at z = 0) and x, y about its vertical axis; :class:`StandinCategory`
moves them down by half the declared height, so the body origin is the bounding box's centre
(as every category's). The shape builders below (:func:`fruit`, :func:`can`, :func:`carton`,
:func:`bowl`, :func:`mug`, :func:`cabinet`, ...) return the parts of a family of objects from
a few sizes [m] and colours; :mod:`rsb_mj.scene.categories.standins` is the table that applies
them to each category.

Packaged goods carry a printed label: a texture with the product name drawn with OpenCV on the
faces of their ``label`` parts (boxes: each face shows the whole texture).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import cv2
import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category, RegionSpec, collision_defaults
from rsb_mj.scene.categories.shapes import add_mesh, revolve

RGBA = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]
Profile = tuple[tuple[float, float], ...]

#: Label texture size [px] (width, height).
LABEL_W, LABEL_H = 256, 128

_GEOM = {
    "box": mujoco.mjtGeom.mjGEOM_BOX,
    "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER,
    "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
    "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
    "ellipsoid": mujoco.mjtGeom.mjGEOM_ELLIPSOID,
    "revolve": mujoco.mjtGeom.mjGEOM_MESH,
}


@dataclass(frozen=True)
class Part:
    """One primitive of a stand-in.

    Attributes:
        kind: ``box``, ``cylinder``, ``sphere``, ``capsule``, ``ellipsoid`` or ``revolve``.
        size: MuJoCo size (half extents [m], radius and half length, ...); for ``revolve`` the
            per-axis scale of the profile.
        pos: centre (x, y, z) [m], z up from the object's bottom (``revolve``: the profile's
            z = 0 sits at ``pos``).
        rgba: colour.
        collide: True for a solid part (contacts and mass), False for a drawn detail.
        euler: orientation [rad] (intrinsic x, y, z, MuJoCo's default).
        profile: ``(radius, z)`` points [m] of a ``revolve`` part (convex; starts and ends on
            the axis).
        segments: vertices per ring of a ``revolve`` part.
        label: True to draw the stand-in's label texture on this part.
        rim: True for a segment of the upright wall at the top of a hollow object (a bowl's,
            a mug's): the expert's rim grasp straddles these (:attr:`StandinCategory.rim`).
        handle: True for the bar a handle grasp closes across (a pan's, a moka pot's): a
            box whose x axis runs along the handle (:attr:`StandinCategory.handle`).
    """

    kind: str
    size: Vec3
    pos: Vec3
    rgba: RGBA
    collide: bool = True
    euler: Vec3 = (0.0, 0.0, 0.0)
    profile: Profile = ()
    segments: int = 24
    label: bool = False
    rim: bool = False
    handle: bool = False


@dataclass(frozen=True)
class Handle:
    """The bar of a stand-in's handle, where a handle grasp takes it.

    Attributes:
        center: the bar's centre (x, y, z) in the body frame [m] (origin: the box centre).
        axis: the bar's direction (x, y) in the body frame (unit; the fingers close across).
        top: the bar's top, z in the body frame [m].
    """

    center: tuple[float, float, float]
    axis: tuple[float, float]
    top: float


@dataclass(frozen=True)
class Rim:
    """The upright wall at the top of a hollow stand-in, where a rim grasp takes it.

    Attributes:
        center: the wall's axis (x, y) in the body frame [m].
        radius: radius of the wall's mid-surface [m].
        wall: the wall's thickness [m].
        top: the wall's top, z in the body frame [m] (the body origin is the box centre).
        depth: how far the wall reaches down from ``top`` [m].
    """

    center: tuple[float, float]
    radius: float
    wall: float
    top: float
    depth: float


@dataclass(frozen=True)
class Label:
    """A printed label: the product name in ``ink`` on ``paper`` (RGB 0-255)."""

    text: str
    paper: tuple[int, int, int]
    ink: tuple[int, int, int]


@dataclass(frozen=True)
class Standin:
    """One row of the stand-in table.

    Attributes:
        name: category name as task files use it (``akita_black_bowl``).
        noun: what instructions call it ("black bowl").
        size: declared bounding box (x, y, z) [m]; the parts stay inside it.
        parts: the primitives (z up from the bottom).
        grasp: expert hint (``top``, ``rim``, ``handle``, ``edge``, ``none``).
        regions: regions in the object's frame, **z up from the bottom** (converted to the
            body frame by :class:`StandinCategory`).
        fixture: a static prop (no free joint).
        label: printed label of packaged goods, or None.
        density: of the solid parts [kg/m^3].
        yaw: turn [rad] of the whole object about z (``rotated_fork``: a quarter turn).
        original: the original's size (x, y, z) [m] as measured from its MJCF, or () where
            it could not be measured (documentation, and the size check's reference).
    """

    name: str
    noun: str
    size: Vec3
    parts: tuple[Part, ...]
    grasp: str = "top"
    regions: tuple[RegionSpec, ...] = ()
    fixture: bool = False
    label: Label | None = None
    density: float = 400.0
    yaw: float = 0.0
    original: tuple[float, ...] = field(default=())


def turned(standin: Standin, name: str, yaw: float) -> Standin:
    """``standin`` renamed ``name`` and turned by ``yaw`` [rad] (a multiple of pi/2)."""
    size = standin.size
    if round(yaw / (math.pi / 2)) % 2:
        size = (size[1], size[0], size[2])
    return replace(standin, name=name, yaw=yaw, size=size)


@cache
def label_image(label: Label) -> np.ndarray:
    """The label texture (LABEL_H, LABEL_W, 3) uint8: the text in up to two lines,
    as large as fits, with a border in the ink colour."""

    img = np.empty((LABEL_H, LABEL_W, 3), dtype=np.uint8)
    img[:] = label.paper
    cv2.rectangle(img, (4, 4), (LABEL_W - 5, LABEL_H - 5), label.ink, 3)
    words = label.text.split()
    lines = [label.text] if len(words) == 1 else [" ".join(words[:1]), " ".join(words[1:])]
    if len(words) > 2:
        half = (len(words) + 1) // 2
        lines = [" ".join(words[:half]), " ".join(words[half:])]
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = 4.0
    for line in lines:
        (w, _), _ = cv2.getTextSize(line, font, 1.0, 3)
        scale = min(scale, (LABEL_W - 24) / w)
    scale = min(scale, (LABEL_H - 24) / (len(lines) * 26.0))
    thick = max(2, round(scale * 2.2))
    line_h = LABEL_H / (len(lines) + 1)
    for i, line in enumerate(lines):
        (w, h), _ = cv2.getTextSize(line, font, scale, thick)
        org = (int((LABEL_W - w) / 2), int(line_h * (i + 1) + h / 2))
        cv2.putText(img, line, org, font, scale, label.ink, thick, cv2.LINE_AA)
    return img


def _label_material(spec: mujoco.MjSpec, standin: Standin) -> str:
    name = f"standin_label/{standin.name}"
    if spec.texture(name) is None:  # (spec.material misses new ones on a copied spec)
        assert standin.label is not None
        tex = spec.add_texture(
            name=name,
            type=mujoco.mjtTexture.mjTEXTURE_2D,
            width=LABEL_W,
            height=LABEL_H,
            nchannel=3,
        )
        tex.data = label_image(standin.label).tobytes()
        mat = spec.add_material(name=name, rgba=[1.0, 1.0, 1.0, 1.0])
        mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = name
        mat.specular = 0.1
        mat.shininess = 0.1
    return name


class StandinCategory(Category):
    """A category built from a :class:`Standin` row (fixed colours: no episode colour)."""

    def __init__(self, standin: Standin) -> None:
        self.standin = standin
        self.name = standin.name
        self.rest_height = standin.size[2] / 2
        self.fixture = standin.fixture
        self.grasp = standin.grasp
        lift = np.array([0.0, 0.0, standin.size[2] / 2])
        turn = _yaw_matrix(standin.yaw)
        self.regions = tuple(
            replace(
                r,
                center=_vec(turn @ (np.asarray(r.center) - lift)),
                quat=_turn_quat(standin.yaw, r.quat),
            )
            for r in standin.regions
        )
        walls = [p for p in standin.parts if p.rim]
        #: The rim a rim grasp takes (body frame), or None for an object without one.
        self.rim: Rim | None = None
        if walls:
            xy = np.array([(turn @ np.asarray(p.pos))[:2] for p in walls])
            center = xy.mean(axis=0)
            top = max(p.pos[2] + p.size[2] for p in walls)
            self.rim = Rim(
                center=(round(float(center[0]), 6), round(float(center[1]), 6)),
                radius=round(float(np.linalg.norm(xy - center, axis=1).mean()), 6),
                wall=2 * walls[0].size[0],
                top=round(top - standin.size[2] / 2, 6),
                depth=round(top - min(p.pos[2] - p.size[2] for p in walls), 6),
            )

        bars = [p for p in standin.parts if p.handle]
        #: The handle a handle grasp takes (body frame), or None for an object without one.
        self.handle: Handle | None = None
        if bars:
            bar = bars[0]
            rot = turn @ _quat_matrix(_euler_quat(bar.euler))
            c = turn @ np.asarray(bar.pos) - lift
            axis = rot[:2, 0] / max(float(np.linalg.norm(rot[:2, 0])), 1e-9)
            top = float(c[2] + np.abs(rot[2]) @ np.asarray(bar.size))
            self.handle = Handle(
                center=_vec(c),
                axis=(round(float(axis[0]), 6), round(float(axis[1]), 6)),
                top=round(top, 6),
            )

    def __repr__(self) -> str:
        return f"StandinCategory({self.name!r})"

    @property
    def description(self) -> str:
        """What the stand-in is: noun, size, fixture or not, regions."""
        s = self.standin
        size = " x ".join(f"{v * 100:.1f}" for v in s.size)
        kind = "a static prop" if s.fixture else f"grasp hint {s.grasp!r}"
        regions = ", ".join(r.name for r in s.regions)
        return (
            f"``{s.name}``: the project's stand-in for LIBERO / VLA-Arena's object: "
            f"{s.noun} ({size} cm; {kind})" + (f"; regions {regions}" if regions else "") + "."
        )

    @property
    def half_extents(self) -> tuple[float, float, float]:
        """Half the declared size (x, y, z) [m] (the parts stay inside it)."""
        x, y, z = self.standin.size
        return (x / 2, y / 2, z / 2)

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        s = self.standin
        down = s.size[2] / 2
        turn = _yaw_matrix(s.yaw)
        for i, part in enumerate(s.parts):
            pos = turn @ (np.asarray(part.pos) - np.array([0.0, 0.0, down]))
            kw: dict = {
                "type": _GEOM[part.kind],
                "pos": pos.tolist(),
                "quat": list(_turn_quat(s.yaw, _euler_quat(part.euler))),
                "rgba": list(part.rgba),
                "group": 2,
            }
            if part.kind == "revolve":
                verts, faces = revolve(part.profile, segments=part.segments)
                kw["meshname"] = add_mesh(spec, f"standin_{s.name}_{i}", verts, faces, part.size)
            else:
                kw["size"] = list(part.size)
            if part.label:
                kw["material"] = _label_material(spec, s)
                kw["rgba"] = [1.0, 1.0, 1.0, 1.0]
            if part.collide:
                geom = body.add_geom(name=f"{obj}/p{i}", **kw)
                collision_defaults(geom, density=s.density)
            else:
                body.add_geom(name=f"{obj}/p{i}", contype=0, conaffinity=0, density=0.0, **kw)
        sites = []
        for r in self.regions:
            site = body.add_site(
                name=f"{obj}_{r.name}",
                type=mujoco.mjtGeom.mjGEOM_BOX,
                size=list(r.half_size),
                pos=list(r.center),
                quat=list(r.quat),
                group=5,
                rgba=[0.0, 1.0, 0.0, 0.0],
            )
            sites.append(site.name)
        grip = min(s.size[0], s.size[1])
        return BuiltObject(color_geoms=(), letter_geoms=(), grip_width=grip, sites=tuple(sites))


def _vec(v: np.ndarray) -> Vec3:
    x, y, z = (round(float(c), 6) for c in v)
    return (x, y, z)


def _yaw_matrix(yaw: float) -> np.ndarray:
    c, s = round(math.cos(yaw), 12), round(math.sin(yaw), 12)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _quat_matrix(quat: Sequence[float]) -> np.ndarray:
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=float))
    return mat.reshape(3, 3)


def _euler_quat(euler: Sequence[float]) -> tuple[float, float, float, float]:
    quat = np.zeros(4)
    mujoco.mju_euler2Quat(quat, np.asarray(euler, dtype=float), "xyz")
    w, x, y, z = (float(v) for v in quat)
    return (w, x, y, z)


def _turn_quat(yaw: float, quat: Sequence[float]) -> tuple[float, float, float, float]:
    if yaw == 0.0:
        w, x, y, z = (float(v) for v in quat)
        return (w, x, y, z)
    out = np.zeros(4)
    turn = np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])
    mujoco.mju_mulQuat(out, turn, np.asarray(quat, dtype=float))
    w, x, y, z = (round(float(v), 9) for v in out)
    return (w, x, y, z)


def _shade(rgba: RGBA, factor: float) -> RGBA:
    """``rgba`` darkened by ``factor`` (opaque)."""
    return (rgba[0] * factor, rgba[1] * factor, rgba[2] * factor, 1.0)


# --- Shape builders: the parts of a family of objects (z up from the bottom) -------------


def ellipse_profile(radius: float, height: float, flat: float = 0.35, n: int = 9) -> Profile:
    """A spheroid's profile (radius, z) [m] with a flat bottom of ``flat`` x ``radius``."""
    pts: list[tuple[float, float]] = [(0.0, 0.0)]
    z0 = height / 2 * (1 - math.sqrt(1 - flat**2))
    for k in range(n + 1):
        z = z0 + (height - z0) * k / n
        t = (z - height / 2) / (height / 2)
        r = radius * math.sqrt(max(0.0, 1 - t * t))
        if r > 1e-4:
            pts.append((round(r, 5), round(z, 5)))
    pts.append((0.0, height))
    return tuple(pts)


def fruit(
    size: Vec3,
    rgba: RGBA,
    *,
    top: RGBA | None = None,
    top_size: float = 0.004,
    flat: float = 0.35,
    spots: RGBA | None = None,
) -> tuple[Part, ...]:
    """A round fruit or vegetable: a spheroid of (x, y, z) extents [m] on a flat bottom, a
    stem, calyx or leaf tuft of colour ``top`` (drawn), and an optional blush ``spots``."""
    x, y, z = size
    r = max(x, y) / 2
    parts = [
        Part(
            "revolve",
            (x / 2 / r, y / 2 / r, 1.0),
            (0.0, 0.0, 0.0),
            rgba,
            profile=ellipse_profile(r, z, flat),
        )
    ]
    if top is not None:
        parts.append(Part("cylinder", (top_size, 0.0025, 0.0), (0.0, 0.0, z - 0.001), top, False))
    if spots is not None:
        parts.append(
            Part("ellipsoid", (x * 0.28, y * 0.3, z * 0.3), (x * 0.2, 0.0, z * 0.55), spots, False)
        )
    return tuple(parts)


def lying(
    size: Vec3, rgba: RGBA, *, tip: RGBA | None = None, taper: float = 1.0
) -> tuple[Part, ...]:
    """A long round object lying along x (carrot, cucumber): an invisible box collides,
    a capsule (or a cone for ``taper`` < 1) is drawn; ``tip`` colours the +x end (leaves)."""
    x, y, z = size
    r = min(y, z) / 2
    parts = [Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), (0, 0, 0, 0))]
    end = x / 2 - (1.2 * r if tip is not None else 0.0)  # the body's +x end [m]
    length = end + x / 2
    if taper < 1.0:
        n = 6
        prof: list[tuple[float, float]] = [(0.0, 0.0)]
        for k in range(n + 1):
            t = k / n
            prof.append((round(r * (taper + (1 - taper) * t), 5), round((length - r) * t, 5)))
        prof.append((0.0, length - r))
        parts.append(
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (-x / 2, 0.0, z / 2),
                rgba,
                False,
                euler=(0.0, math.pi / 2, 0.0),
                profile=tuple(prof),
            )
        )
        parts.append(Part("sphere", (r, 0, 0), (end - r, 0.0, z / 2), rgba, False))
    else:
        parts.append(
            Part(
                "capsule",
                (r, length / 2 - r, 0.0),
                (end - length / 2, 0.0, z / 2),
                rgba,
                False,
                euler=(0.0, math.pi / 2, 0.0),
            )
        )
    if tip is not None:
        parts.append(
            Part(
                "capsule",
                (r * 0.35, r * 0.6, 0.0),
                (end, 0.0, z / 2 + r * 0.2),
                tip,
                False,
                euler=(0.0, math.pi / 2, 0.0),
            )
        )
    return tuple(parts)


def can(
    size: Vec3,
    rgba: RGBA,
    *,
    lid: RGBA = (0.75, 0.75, 0.78, 1),
    band: RGBA | None = None,
    band_z: tuple[float, float] = (0.0, 0.5),
) -> tuple[Part, ...]:
    """A can of (diameter, diameter, height) [m]: a cylinder, a metal lid, and its label
    printed on a square on the lid; ``band`` paints the side from ``band_z`` (fractions of
    the height) in another colour, as a two-colour paper label (drawn)."""
    diameter, _, height = size
    r = diameter / 2
    side = r * 1.2
    painted: tuple[Part, ...] = ()
    if band is not None:
        lo, hi = band_z[0] * height, band_z[1] * height
        painted = (
            Part(
                "cylinder", (r + 0.0004, (hi - lo) / 2, 0.0), (0.0, 0.0, (hi + lo) / 2), band, False
            ),
        )
    return (
        Part("cylinder", (r, height / 2 - 0.0015, 0.0), (0.0, 0.0, height / 2 - 0.0015), rgba),
        Part("cylinder", (r * 0.96, 0.0015, 0.0), (0.0, 0.0, height - 0.0015), lid),
        Part(
            "box",
            (side / 2, side / 2, 0.0006),
            (0.0, 0.0, height - 0.0006),
            rgba,
            False,
            label=True,
        ),
        *painted,
    )


def carton(size: Vec3, rgba: RGBA = (1, 1, 1, 1)) -> tuple[Part, ...]:
    """A box of packaged goods (butter, cookies), labelled on every face (the label's
    colours are the box's: ``rgba`` is not drawn)."""
    x, y, z = size
    return (Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), rgba, label=True),)


def lying_carton(size: Vec3, rgba: RGBA, *, cap: RGBA) -> tuple[Part, ...]:
    """A gable-top carton (milk, juice) lying on its side along x: the labelled box, its
    gable at +x (a square bar turned 45 degrees, half of it showing) and the sealed fin
    (``cap``) at the tip."""
    x, y, z = size
    fin = 0.004
    body_x = x - z / 2 - fin
    gable = z / 2 / math.sqrt(2)
    tip = -x / 2 + body_x
    return (
        Part(
            "box", (body_x / 2, y / 2, z / 2), (-x / 2 + body_x / 2, 0.0, z / 2), rgba, label=True
        ),
        Part(
            "box",
            (gable, y / 2 - 0.001, gable),
            (tip, 0.0, z / 2),
            rgba,
            euler=(0.0, math.pi / 4, 0.0),
        ),
        Part("box", (fin / 2, y / 2 - 0.002, 0.0035), (x / 2 - fin / 2, 0.0, z / 2), cap),
    )


def bottle(
    size: Vec3,
    rgba: RGBA,
    *,
    cap: RGBA,
    neck: float = 0.35,
    square: bool = False,
) -> tuple[Part, ...]:
    """An upright bottle of (x, y, height) [m]: body (round, x across; or ``square`` for
    sauces, x by y), shoulder, neck and cap, with a labelled band drawn round the body (a
    box: readable from the head camera)."""
    height = size[2]
    r = min(size[0], size[1]) / 2
    body_h = height * (1 - neck)
    if square:  # a sauce bottle with a (x, y) [m] rectangular body
        sx, sy = size[0] / 2, size[1] / 2
        r = min(sx, sy)
        body = Part("box", (sx, sy, body_h / 2), (0.0, 0.0, body_h / 2), rgba)
        band = Part(
            "box",
            (sx + 0.0005, sy + 0.0005, body_h * 0.3),
            (0.0, 0.0, body_h * 0.5),
            rgba,
            False,
            label=True,
        )
    else:
        body = Part(
            "revolve",
            (1.0, 1.0, 1.0),
            (0.0, 0.0, 0.0),
            rgba,
            profile=(
                (0.0, 0.0),
                (r, 0.0),
                (r, body_h),
                (r * 0.45, body_h + height * neck * 0.45),
                (0.0, body_h + height * neck * 0.45),
            ),
        )
        side = r * 0.72
        band = Part(
            "box", (side, side, body_h * 0.3), (0.0, 0.0, body_h * 0.5), rgba, False, label=True
        )
    return (
        body,
        Part(
            "cylinder",
            (r * 0.5 if square else r * 0.3, height * neck / 2, 0.0),
            (0.0, 0.0, body_h + height * neck / 2 - 0.006),
            rgba,
        ),
        Part(
            "cylinder",
            (r * 0.55 if square else r * 0.36, 0.006, 0.0),
            (0.0, 0.0, height - 0.006),
            cap,
        ),
        band,
    )


def lying_bottle(size: Vec3, rgba: RGBA, *, cap: RGBA) -> tuple[Part, ...]:
    """A squeeze bottle lying along x (ketchup, dressing): a rounded body, a cap at +x and
    the label on its upper face."""
    x, y, z = size
    body_x = x * 0.82
    return (
        Part("box", (body_x / 2, y / 2, z / 2), (-x / 2 + body_x / 2, 0.0, z / 2), rgba),
        Part(
            "cylinder",
            (z * 0.28, (x - body_x) / 2, 0.0),
            (x / 2 - (x - body_x) / 2, 0.0, z / 2),
            cap,
            euler=(0.0, math.pi / 2, 0.0),
        ),
        Part(
            "box",
            (body_x * 0.33, y * 0.42, 0.0006),
            (-x / 2 + body_x / 2, 0.0, z + 0.0006),
            rgba,
            False,
            label=True,
        ),
    )


def squeeze_bottle(size: Vec3, rgba: RGBA, *, cap: RGBA) -> tuple[Part, ...]:
    """A squeeze bottle lying along x (ketchup): a body of rounded-rectangle section (flat
    underneath), a shoulder narrowing to the neck, and the cap at +x; the label on its
    upper face."""
    x, y, z = size
    e = 0.008  # the body's edge radius
    body_x = x * 0.72
    shoulder, neck = x * 0.1, x * 0.05
    bx = -x / 2 + body_x / 2
    parts = [
        Part("box", (body_x / 2, y / 2, z / 2 - e), (bx, 0.0, z / 2), rgba),
        Part("box", (body_x / 2, y / 2 - e, z / 2), (bx, 0.0, z / 2), rgba),
    ]
    for cy in (-y / 2 + e, y / 2 - e):
        for cz in (e, z - e):
            parts.append(
                Part(
                    "cylinder",
                    (e, body_x / 2, 0.0),
                    (bx, cy, cz),
                    rgba,
                    euler=(0.0, math.pi / 2, 0.0),
                )
            )
    x0 = -x / 2 + body_x
    parts += [
        Part(
            "revolve",
            (1.0, y / z, 1.0),
            (x0, 0.0, z / 2),
            rgba,
            euler=(0.0, math.pi / 2, 0.0),
            profile=((0.0, 0.0), (z / 2, 0.0), (z * 0.2, shoulder), (0.0, shoulder)),
        ),
        Part(
            "cylinder",
            (z * 0.2, neck / 2, 0.0),
            (x0 + shoulder + neck / 2, 0.0, z / 2),
            rgba,
            euler=(0.0, math.pi / 2, 0.0),
        ),
        Part(
            "cylinder",
            (z * 0.3, (x / 2 - x0 - shoulder - neck) / 2, 0.0),
            ((x0 + shoulder + neck + x / 2) / 2, 0.0, z / 2),
            cap,
            euler=(0.0, math.pi / 2, 0.0),
        ),
        Part(
            "box", (body_x * 0.36, y * 0.36, 0.0006), (bx, 0.0, z + 0.0006), rgba, False, label=True
        ),
    ]
    return tuple(parts)


def _tilted(axis_z: np.ndarray, azimuth: float) -> Vec3:
    """Intrinsic x-y-z Euler angles [rad] of a frame turned ``azimuth`` about z whose z
    axis is ``axis_z`` (unit, in the plane of the azimuth: a wall segment leaning out)."""
    c, s = math.cos(azimuth), math.sin(azimuth)
    tilt = math.atan2(float(axis_z[0] * c + axis_z[1] * s), float(axis_z[2]))
    ct, st = math.cos(tilt), math.sin(tilt)
    rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[ct, 0.0, st], [0.0, 1.0, 0.0], [-st, 0.0, ct]])
    m = rz @ ry  # R = Rx(a) Ry(b) Rz(g) for intrinsic x-y-z
    b = math.asin(max(-1.0, min(1.0, float(m[0, 2]))))
    a = math.atan2(-float(m[1, 2]), float(m[2, 2]))
    g = math.atan2(-float(m[0, 1]), float(m[0, 0]))
    return (round(a, 9), round(b, 9), round(g, 9))


def ring(
    start: tuple[float, float],
    end: tuple[float, float],
    wall: float,
    rgba: RGBA,
    *,
    segments: int = 16,
    center: tuple[float, float] = (0.0, 0.0),
    rim: bool = False,
    collide: bool = True,
) -> list[Part]:
    """A wall of revolution made of ``segments`` boxes that collide: its mid-surface runs
    from ``start`` to ``end``, each ``(radius, z)`` [m] (z up from the object's bottom), the
    boxes ``wall`` thick, about the vertical axis through ``center`` (x, y) [m]. ``rim``
    marks them as the wall a rim grasp takes (:class:`Rim`); ``collide`` False only draws
    them (a printed band)."""
    (r0, z0), (r1, z1) = start, end
    length = math.hypot(r1 - r0, z1 - z0)
    half_w = math.pi * max(r0, r1) / segments + wall / 2  # closes the gaps between boxes
    rm, zm = (r0 + r1) / 2, (z0 + z1) / 2
    parts = []
    for k in range(segments):
        a = 2 * math.pi * k / segments
        c, s = math.cos(a), math.sin(a)
        axis = np.array([(r1 - r0) * c, (r1 - r0) * s, z1 - z0]) / length
        parts.append(
            Part(
                "box",
                (wall / 2, round(half_w, 6), round(length / 2, 6)),
                (round(center[0] + rm * c, 6), round(center[1] + rm * s, 6), round(zm, 6)),
                rgba,
                collide,
                euler=_tilted(axis, a),
                rim=rim,
            )
        )
    return parts


#: Wall thickness of bowls and mugs [m] (the rim grasp closes on it).
BOWL_WALL = 0.005


def bowl(
    size: Vec3,
    rgba: RGBA,
    *,
    inside: RGBA | None = None,
    rim: RGBA | None = None,
    wall: float = BOWL_WALL,
) -> tuple[Part, ...]:
    """A hollow bowl: a solid foot whose top is the inner floor, a wall leaning out to 45%
    of the height, then upright to the rim (the part a rim grasp takes), coloured ``rim``
    in its top eighth when given. The floor is high enough that an object 18 mm tall or
    more resting in the bowl has its centre above the bowl's (LIBERO's ``On`` test: a
    cream cheese box in the bowl). ``size``: (diameter, diameter, height) [m]."""
    diameter, _, height = size
    r = diameter / 2
    r_top = r - wall / 2  # the upright wall's mid-surface
    r_foot = 0.62 * r
    knee = 0.45 * height
    floor = max(0.006, height / 2 - 0.009)
    inner = inside or _shade(rgba, 0.6)
    # the foot, and the floor reaching out to the leaning wall
    r_floor = r_foot + (r_top - r_foot) * min(1.0, floor / knee) - wall / 2
    parts = [
        Part("cylinder", (r_foot, floor / 2, 0.0), (0.0, 0.0, floor / 2), rgba),
        Part("cylinder", (r_floor, 0.003, 0.0), (0.0, 0.0, floor - 0.003), rgba),
        Part("cylinder", (r_floor - wall, 0.0005, 0.0), (0.0, 0.0, floor), inner, False),
    ]
    parts += ring((r_foot, wall / 2), (r_top, knee), wall, rgba)
    band = height * (0.88 if rim is not None else 1.0)
    parts += ring((r_top, knee), (r_top, band), wall, rgba, rim=True)
    if rim is not None:
        parts += ring((r_top, band), (r_top, height), wall, rim, rim=True)
    return tuple(parts)


def plate(
    size: Vec3, rgba: RGBA, *, well: RGBA | None = None, wall: float = 0.004
) -> tuple[Part, ...]:
    """A plate of (diameter, diameter, height) [m]: a flat floor (the well, drawn a little
    darker) and a raised rim leaning out to the full diameter, which keeps what is put on
    the plate on it."""
    diameter, _, height = size
    r = diameter / 2
    r_well = 0.62 * r
    floor = max(0.004, 0.3 * height)
    shade = well or _shade(rgba, 0.92)
    parts = [
        Part("cylinder", (r_well, floor / 2, 0.0), (0.0, 0.0, floor / 2), rgba),
        Part("cylinder", (r_well - wall, 0.0004, 0.0), (0.0, 0.0, floor), shade, False),
    ]
    parts += ring((r_well, wall / 2), (r - wall, height - wall / 2), wall, rgba, segments=20)
    return tuple(parts)


def mug(
    size: Vec3,
    rgba: RGBA,
    *,
    inside: RGBA | None = None,
    band: RGBA | None = None,
    wall: float = BOWL_WALL,
) -> tuple[Part, ...]:
    """A hollow mug of (x with handle, y = diameter, z) extents: a floor, an upright wall
    (the part a rim grasp takes), a dark inside, and a handle of three bars at +x; ``band``
    draws a stripe round it."""
    x, y, z = size
    r = y / 2
    reach = x - y  # the handle's reach beyond the body
    cx = -x / 2 + r
    floor = 0.008
    parts = [
        Part("cylinder", (r - wall / 2, floor / 2, 0.0), (cx, 0.0, floor / 2), rgba),
        Part(
            "cylinder",
            (r - wall, 0.0005, 0.0),
            (cx, 0.0, floor),
            inside or (0.15, 0.1, 0.08, 1.0),
            False,
        ),
    ]
    parts += ring((r - wall / 2, 0.0), (r - wall / 2, z), wall, rgba, center=(cx, 0.0), rim=True)
    bar = 0.005
    hx = cx + r + reach / 2 - bar / 2
    parts += [
        Part("box", (reach / 2, bar, bar), (cx + r + reach / 2 - bar, 0.0, z * 0.8), rgba),
        Part("box", (reach / 2, bar, bar), (cx + r + reach / 2 - bar, 0.0, z * 0.25), rgba),
        Part("box", (bar, bar, z * 0.275 + bar), (hx + reach / 2 - bar / 2, 0.0, z * 0.525), rgba),
    ]
    if band is not None:
        parts += ring((r, z * 0.48), (r, z * 0.62), 0.0012, band, center=(cx, 0.0), collide=False)
    return tuple(parts)


def book(size: Vec3, cover: RGBA, pages: RGBA = (0.93, 0.91, 0.84, 1.0)) -> tuple[Part, ...]:
    """A book standing on its bottom edge: cover boards along y, pages between, the title
    printed on the front cover (-y) and the back."""
    x, y, z = size
    board = 0.0025
    return (
        Part("box", (x / 2 - 0.002, y / 2 - board, z / 2 - 0.002), (0.002, 0.0, z / 2), pages),
        Part("box", (x / 2, board / 2, z / 2), (0.0, -y / 2 + board / 2, z / 2), cover),
        Part("box", (x / 2, board / 2, z / 2), (0.0, y / 2 - board / 2, z / 2), cover),
        Part("box", (0.002, y / 2, z / 2), (-x / 2 + 0.002, 0.0, z / 2), cover),
        Part(
            "box",
            (x * 0.35, 0.0004, z * 0.18),
            (0.0, -y / 2 - 0.0004, z * 0.62),
            cover,
            False,
            label=True,
        ),
        Part(
            "box",
            (x * 0.35, 0.0004, z * 0.18),
            (0.0, y / 2 + 0.0004, z * 0.62),
            cover,
            False,
            label=True,
        ),
    )


def container(
    size: Vec3, rgba: RGBA, *, wall: float = 0.008, rim: RGBA | None = None
) -> tuple[Part, ...]:
    """An open container (basket, tray, box): a floor and four walls that collide."""
    x, y, z = size
    w = wall
    rim_rgba = rim or rgba
    return (
        Part("box", (x / 2, y / 2, w / 2), (0.0, 0.0, w / 2), rgba),
        Part("box", (w / 2, y / 2, z / 2), (x / 2 - w / 2, 0.0, z / 2), rim_rgba),
        Part("box", (w / 2, y / 2, z / 2), (-x / 2 + w / 2, 0.0, z / 2), rim_rgba),
        Part("box", (x / 2 - w, w / 2, z / 2), (0.0, y / 2 - w / 2, z / 2), rim_rgba),
        Part("box", (x / 2 - w, w / 2, z / 2), (0.0, -y / 2 + w / 2, z / 2), rim_rgba),
        Part(
            "box",
            (x / 2 - w, y / 2 - w, 0.0004),
            (0.0, 0.0, w + 0.0004),
            _shade(rgba, 0.8),
            False,
        ),
    )


def board(size: Vec3, rgba: RGBA, *, hole: RGBA | None = None) -> tuple[Part, ...]:
    """A flat board (cutting board, chocolate bar) with an optional hanging hole at +x."""
    x, y, z = size
    parts = [Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), rgba)]
    if hole is not None:
        parts.append(Part("cylinder", (0.012, 0.0005, 0.0), (x / 2 - 0.03, 0.0, z), hole, False))
    return tuple(parts)


def utensil(size: Vec3, handle: RGBA, *, blade: RGBA, kind: str) -> tuple[Part, ...]:
    """A flat utensil lying along x: a handle at -x and a blade (``knife``), tines
    (``fork``) or two blades and finger loops (``scissors``) at +x."""
    x, y, z = size
    hl = x * 0.42
    if kind == "scissors":
        return (
            Part("box", (x * 0.3, y * 0.12, z / 2), (x * 0.2, y * 0.1, z / 2), blade),
            Part(
                "box",
                (x * 0.3, y * 0.12, z / 2),
                (x * 0.2, -y * 0.1, z / 2),
                blade,
                euler=(0, 0, -0.08),
            ),
            Part("cylinder", (y * 0.25, z / 2, 0.0), (-x / 2 + y * 0.25, y * 0.24, z / 2), handle),
            Part("cylinder", (y * 0.25, z / 2, 0.0), (-x / 2 + y * 0.25, -y * 0.24, z / 2), handle),
            Part(
                "cylinder",
                (y * 0.14, z / 2 + 0.0003, 0.0),
                (-x / 2 + y * 0.25, y * 0.24, z / 2),
                (0.2, 0.2, 0.2, 1),
                False,
            ),
            Part(
                "cylinder",
                (y * 0.14, z / 2 + 0.0003, 0.0),
                (-x / 2 + y * 0.25, -y * 0.24, z / 2),
                (0.2, 0.2, 0.2, 1),
                False,
            ),
            Part(
                "box", (x * 0.12, y * 0.2, z / 2), (-x / 2 + y * 0.55 + x * 0.1, 0.0, z / 2), handle
            ),
        )
    parts = [Part("box", (hl / 2, y * 0.32, z / 2), (-x / 2 + hl / 2, 0.0, z / 2), handle)]
    rest = x - hl
    if kind == "knife":
        parts.append(
            Part("box", (rest / 2, y / 2, z * 0.25), (x / 2 - rest / 2, 0.0, z * 0.25), blade)
        )
    else:  # fork
        neck = rest * 0.55
        parts.append(
            Part(
                "box", (neck / 2, y * 0.2, z * 0.25), (-x / 2 + hl + neck / 2, 0.0, z * 0.25), blade
            )
        )
        tine_l = rest - neck
        for k in range(4):
            yy = (k - 1.5) * y * 0.27
            parts.append(
                Part(
                    "box",
                    (tine_l / 2, y * 0.06, z * 0.25),
                    (x / 2 - tine_l / 2, yy, z * 0.25),
                    blade,
                )
            )
        parts.append(Part("box", (0.004, y / 2, z * 0.25), (x / 2 - tine_l, 0.0, z * 0.25), blade))
    return tuple(parts)


def vehicle(
    size: Vec3, body: RGBA, *, cars: int = 1, rider: RGBA | None = None
) -> tuple[Part, ...]:
    """A toy vehicle along x: an invisible box collides; coloured bodies (``cars`` boxes with
    gaps, a cabin on the first) and black wheels are drawn; ``rider`` draws a motorbike."""
    x, y, z = size
    black = (0.08, 0.08, 0.08, 1.0)
    parts = [Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), (0, 0, 0, 0))]
    wheel = min(z * 0.22, 0.02)
    if rider is not None:  # motorbike: two big wheels, a body and a seat
        wheel = z * 0.3
        for sx in (-1, 1):
            parts.append(
                Part(
                    "cylinder",
                    (wheel, y * 0.2, 0.0),
                    (sx * (x / 2 - wheel), 0.0, wheel),
                    black,
                    False,
                    euler=(math.pi / 2, 0, 0),
                )
            )
        parts.append(Part("box", (x * 0.3, y * 0.3, z * 0.14), (0.0, 0.0, z * 0.55), body, False))
        parts.append(
            Part("box", (x * 0.12, y * 0.35, z * 0.06), (-x * 0.1, 0.0, z * 0.72), rider, False)
        )
        parts.append(
            Part(
                "capsule",
                (0.004, y * 0.45, 0.0),
                (x * 0.28, 0.0, z * 0.9),
                (0.6, 0.6, 0.62, 1),
                False,
                euler=(math.pi / 2, 0, 0),
            )
        )
        return tuple(parts)
    gap = 0.006
    car_l = (x - gap * (cars - 1)) / cars
    for k in range(cars):
        cx = -x / 2 + car_l / 2 + k * (car_l + gap)
        parts.append(
            Part("box", (car_l / 2, y / 2, z * 0.28), (cx, 0.0, wheel + z * 0.28), body, False)
        )
        for sx in (-1, 1):
            for sy in (-1, 1):
                parts.append(
                    Part(
                        "cylinder",
                        (wheel, 0.004, 0.0),
                        (cx + sx * car_l * 0.32, sy * (y / 2 - 0.004), wheel),
                        black,
                        False,
                        euler=(math.pi / 2, 0, 0),
                    )
                )
    first = -x / 2 + car_l / 2
    cab_h = z - wheel - z * 0.56
    parts.append(
        Part(
            "box",
            (car_l * 0.22, y * 0.45, cab_h / 2),
            (first - car_l * 0.2, 0.0, z - cab_h / 2),
            (0.15, 0.15, 0.2, 1),
            False,
        )
    )
    if cars > 1:
        parts.append(
            Part(
                "cylinder",
                (y * 0.12, cab_h / 2, 0.0),
                (first + car_l * 0.3, 0.0, z - cab_h / 2),
                black,
                False,
            )
        )
    return tuple(parts)


def cabinet(size: Vec3, rgba: RGBA, handle: RGBA, *, drawers: int = 3) -> tuple[Part, ...]:
    """A chest of drawers (a fixture): a carcass, drawer fronts on -y with handles (the
    originals' drawers slide along y)."""
    x, y, z = size
    front = _shade(rgba, 0.92)
    face = -y / 2 + 0.01  # the carcass's front face; handles stand out of it
    parts = [Part("box", (x / 2, y / 2 - 0.005, z / 2), (0.0, 0.005, z / 2), rgba)]
    step = (z - 0.02) / drawers
    for k in range(drawers):
        zc = 0.01 + step * (k + 0.5)
        parts.append(
            Part(
                "box",
                (x / 2 - 0.008, 0.001, step / 2 - 0.004),
                (0.0, face - 0.001, zc),
                front,
                False,
            )
        )
        parts.append(Part("box", (x * 0.18, 0.004, 0.005), (0.0, face - 0.006, zc), handle, False))
    return tuple(parts)


def shelf(size: Vec3, rgba: RGBA, *, levels: int) -> tuple[Part, ...]:
    """An open shelf (a fixture): sides at +-x, a back at +y, a bottom and ``levels``
    boards; open at -y (as the originals)."""
    x, y, z = size
    t = 0.012
    parts = [
        Part("box", (t / 2, y / 2, z / 2), (x / 2 - t / 2, 0.0, z / 2), rgba),
        Part("box", (t / 2, y / 2, z / 2), (-x / 2 + t / 2, 0.0, z / 2), rgba),
        Part("box", (x / 2 - t, t / 2, z / 2), (0.0, y / 2 - t / 2, z / 2), _shade(rgba, 0.8)),
    ]
    for k in range(levels + 1):
        zc = t / 2 + (z - t) * k / levels
        parts.append(Part("box", (x / 2 - t, y / 2 - t / 2, t / 2), (0.0, -t / 2, zc), rgba))
    return tuple(parts)


def stove(size: Vec3, rgba: RGBA = (0.12, 0.12, 0.13, 1)) -> tuple[Part, ...]:
    """A flat induction stove (a fixture): a dark slab, a burner ring and two knobs."""
    x, y, z = size
    return (
        Part("box", (x / 2, y / 2, z / 2 - 0.002), (0.0, 0.0, z / 2 - 0.002), rgba),
        Part(
            "box",
            (x / 2 - 0.004, y / 2 - 0.004, 0.002),
            (0.0, 0.0, z - 0.002),
            (0.05, 0.05, 0.06, 1),
        ),
        Part(
            "cylinder", (x * 0.33, 0.0004, 0.0), (0.0, 0.0, z + 0.0003), (0.75, 0.2, 0.1, 1), False
        ),
        Part(
            "cylinder",
            (x * 0.27, 0.0006, 0.0),
            (0.0, 0.0, z + 0.0005),
            (0.05, 0.05, 0.06, 1),
            False,
        ),
        Part(
            "cylinder",
            (0.01, 0.003, 0.0),
            (-x / 2 + 0.014, -y / 2 + 0.02, z - 0.0015),
            (0.8, 0.8, 0.8, 1),
            False,
        ),
        Part(
            "cylinder",
            (0.01, 0.003, 0.0),
            (-x / 2 + 0.014, y / 2 - 0.02, z - 0.0015),
            (0.8, 0.8, 0.8, 1),
            False,
        ),
    )


def microwave(size: Vec3, rgba: RGBA = (0.85, 0.85, 0.86, 1)) -> tuple[Part, ...]:
    """A microwave oven (a fixture): a closed box, a dark glass door on -y, a control panel."""
    x, y, z = size
    return (
        Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), rgba),
        Part(
            "box",
            (x * 0.3, 0.001, z * 0.36),
            (-x * 0.12, -y / 2 - 0.001, z / 2),
            (0.08, 0.08, 0.1, 1),
            False,
        ),
        Part(
            "box",
            (x * 0.12, 0.001, z * 0.36),
            (x * 0.32, -y / 2 - 0.001, z / 2),
            (0.3, 0.3, 0.32, 1),
            False,
        ),
    )


def wine_rack(size: Vec3, rgba: RGBA, *, planes: RGBA) -> tuple[Part, ...]:
    """LIBERO's wine rack (a fixture) as its collision boxes are (``size`` is their bounding
    box, 26.8 x 25.4 x 33 cm): a flat base, a post leaning towards +y and two planes sloping
    up towards +y on which bottles lie, each with a lip at its low edge (-y). Open on both
    sides: nothing else stands on its footprint."""
    tilt = 0.5465  # the planes' slope [rad] (31 degrees)
    return (
        Part("box", (0.09, 0.1245, 0.006), (0.0, 0.0025, 0.006), rgba),
        Part("box", (0.0076, 0.009, 0.1617), (0.0, 0.0089, 0.1703), rgba, euler=(-0.2765, 0, 0)),
        Part("box", (0.134, 0.079, 0.0045), (0.0, -0.0061, 0.2512), planes, euler=(tilt, 0, 0)),
        Part("box", (0.134, 0.079, 0.0045), (0.0, -0.0427, 0.1273), planes, euler=(tilt, 0, 0)),
        Part("box", (0.132, 0.0011, 0.0087), (0.0, -0.0748, 0.2207), rgba, euler=(tilt, 0, 0)),
        Part("box", (0.132, 0.0011, 0.0087), (0.0, -0.1091, 0.0974), rgba, euler=(tilt, 0, 0)),
    )


def caddy(size: Vec3, rgba: RGBA) -> tuple[Part, ...]:
    """A desk caddy (a fixture): a base and walls making left and right compartments and,
    between them, a tall back and a low front compartment."""
    x, y, z = size
    t = 0.006
    low = z * 0.6
    inner = y * 0.2  # the middle compartments' half width
    parts = [
        Part("box", (x / 2, y / 2, t / 2), (0.0, 0.0, t / 2), rgba),
        Part("box", (x / 2, t / 2, z / 2), (0.0, y / 2 - t / 2, z / 2), rgba),
        Part("box", (x / 2, t / 2, z / 2), (0.0, -y / 2 + t / 2, z / 2), rgba),
        Part("box", (x / 2, t / 2, z / 2), (0.0, inner, z / 2), rgba),
        Part("box", (x / 2, t / 2, z / 2), (0.0, -inner, z / 2), rgba),
        Part("box", (t / 2, y / 2, z / 2), (x / 2 - t / 2, 0.0, z / 2), rgba),
        Part("box", (t / 2, y / 2, low / 2), (-x / 2 + t / 2, 0.0, low / 2), rgba),
        Part("box", (t / 2, inner, z / 2), (0.0, 0.0, z / 2), rgba),
    ]
    return tuple(parts)


def revolved(pos: Vec3, rgba: RGBA, profile: Profile, **kw) -> Part:
    """A solid surface of revolution of ``profile`` ((radius, z) points [m]) whose axis
    stands at ``pos`` (z up from the object's bottom); ``kw`` are :class:`Part` fields."""
    return Part("revolve", (1.0, 1.0, 1.0), pos, rgba, profile=profile, **kw)


# --- Builders of one object each (their proportions are the object's) --------------------


def frying_pan(size: Vec3, rgba: RGBA, *, inside: RGBA, handle: RGBA) -> tuple[Part, ...]:
    """A frying pan: a hollow round pan (a floor and a low wall of revolution) at -x and a
    handle bar (the part a handle grasp takes) rising towards +x, as LIBERO's points."""
    x, y, _ = size
    wall = 0.006
    r = round(y / 2 - wall / 2, 6)  # the wall's mid-surface
    cx = round(-x / 2 + y / 2, 6)  # the pan's axis
    return (
        Part("cylinder", (r, 0.003, 0.0), (cx, 0.0, 0.003), rgba),
        Part("cylinder", (round(r - wall, 6), 0.0005, 0.0), (cx, 0.0, wall), inside, False),
        *ring((r, 0.0), (r, 0.04), wall, rgba, center=(cx, 0.0)),
        Part(
            "box",
            (0.078, 0.012, 0.008),
            (round(-cx + 0.023, 6), 0.0, 0.045),
            handle,
            euler=(0.0, -0.2, 0.0),
            handle=True,
        ),
    )


def moka_pot(size: Vec3, rgba: RGBA, *, handle: RGBA) -> tuple[Part, ...]:
    """A moka pot: two octagonal frusta (boiler and jug), a knob on the lid and a handle
    bar at +x (the part a handle grasp takes)."""
    x, _, _ = size
    cx = round(-x / 2 + 0.043, 6)  # the pot's axis
    return (
        revolved(
            (cx, 0.0, 0.0), rgba, ((0.0, 0.0), (0.04, 0.0), (0.036, 0.07), (0.0, 0.07)), segments=8
        ),
        revolved(
            (cx, 0.0, 0.068),
            rgba,
            ((0.0, 0.0), (0.032, 0.0), (0.04, 0.075), (0.0, 0.075)),
            segments=8,
        ),
        Part("sphere", (0.008, 0.0, 0.0), (cx, 0.0, 0.148), handle),
        Part(
            "box", (0.02, 0.006, 0.035), (round(x / 2 - 0.0225, 6), 0.0, 0.1), handle, handle=True
        ),
        Part("box", (0.012, 0.006, 0.005), (round(x / 2 - 0.0425, 6), 0.0, 0.13), handle),
    )


def strawberry(size: Vec3, rgba: RGBA, *, leaf: RGBA, stem: RGBA) -> tuple[Part, ...]:
    """A strawberry: a cone-shaped berry of revolution, a calyx and a stem (drawn)."""
    r, _, z = (v / 2 for v in size)
    return (
        revolved(
            (0.0, 0.0, 0.0),
            rgba,
            ((0.0, 0.0), (0.006, 0.0), (0.018, 0.015), (r, 0.03), (0.02, 0.04), (0.0, 0.042)),
        ),
        Part("cylinder", (0.016, 0.002, 0.0), (0.0, 0.0, 0.043), leaf, False),
        Part("cylinder", (0.002, 0.003, 0.0), (0.0, 0.0, round(2 * z - 0.003, 6)), stem, False),
    )


def broccoli(size: Vec3, rgba: RGBA, *, stalk: RGBA) -> tuple[Part, ...]:
    """A head of broccoli: a stalk and a crown of revolution, their proportions those of an
    11 x 12 cm head scaled to ``size`` (x across the crown, z its height)."""
    sx, sz = size[0] / 0.11, size[2] / 0.12
    crown = ((0.0, 0.0), (0.03, 0.0), (0.05, 0.025), (0.045, 0.055), (0.02, 0.07), (0.0, 0.07))
    return (
        Part(
            "cylinder",
            (round(0.018 * sx, 6), round(0.03 * sz, 6), 0.0),
            (0.0, 0.0, round(0.03 * sz, 6)),
            stalk,
        ),
        revolved(
            (0.0, 0.0, round(0.05 * sz, 6)),
            rgba,
            tuple((round(r * sx, 6), round(z * sz, 6)) for r, z in crown),
        ),
    )


def balls(size: Vec3, rgba: RGBA, *, colours: tuple[RGBA, ...]) -> tuple[Part, ...]:
    """Four balls of radius 18 mm in a pyramid (three below, one on top; ``colours`` in
    that order) on an invisible base that keeps them together."""
    r = 0.018
    spots = ((-r, -0.0156, r), (r, -0.0156, r), (0.0, 0.0156, r), (0.0, -0.0052, 0.0474))
    parts = [Part("sphere", (r, 0.0, 0.0), pos, c) for pos, c in zip(spots, colours, strict=True)]
    parts.append(Part("box", (0.036, 0.03, 0.002), (0.0, 0.0, 0.002), rgba))
    return tuple(parts)


def cake(
    size: Vec3,
    rgba: RGBA,
    *,
    icing: RGBA,
    icing_h: float,
    cherry: RGBA | None = None,
    cream: RGBA | None = None,
) -> tuple[Part, ...]:
    """A round cake: a sponge, an ``icing_h`` thick icing on top, an optional ``cream``
    layer showing round its middle and a ``cherry`` on the icing (drawn)."""
    r, _, z = size[0] / 2, size[1], size[2]
    top = round(z - (0.014 if cherry is not None else 0.0), 6)  # the icing's top
    sponge = round(top - icing_h, 6)
    parts = [
        Part("cylinder", (r, sponge / 2, 0.0), (0.0, 0.0, sponge / 2), rgba),
        Part("cylinder", (r, icing_h / 2, 0.0), (0.0, 0.0, round(sponge + icing_h / 2, 6)), icing),
    ]
    if cream is not None:
        parts.append(
            Part("cylinder", (r + 0.0005, 0.004, 0.0), (0.0, 0.0, sponge / 2), cream, False)
        )
    if cherry is not None:
        parts.append(Part("sphere", (0.007, 0.0, 0.0), (0.0, 0.0, z - 0.007), cherry, False))
    return tuple(parts)


#: Radius of the hole through a ring cake (a donut, a bagel, a chiffon cake's tube) [m]:
#: wide enough for a finger, so that a rim grasp straddles the ring (one finger in the hole).
RING_HOLE = 0.017


def _torus(
    r_in: float, r_out: float, z0: float, z1: float, rgba: RGBA, *, collide: bool = True
) -> list[Part]:
    """A ring of 24 overlapping ellipsoids about the vertical axis: a torus-like body
    between radii ``r_in`` and ``r_out`` [m] and heights ``z0``..``z1`` [m] (up from the
    object's bottom) with a real hole. Solid ones are the wall a rim grasp takes."""
    segments = 24
    rm, half_r, half_z = (r_in + r_out) / 2, (r_out - r_in) / 2, (z1 - z0) / 2
    half_t = 1.6 * math.pi * rm / segments  # overlapping: no dip between neighbours
    parts = []
    for k in range(segments):
        a = 2 * math.pi * k / segments
        parts.append(
            Part(
                "ellipsoid",
                (round(half_r, 6), round(half_t, 6), round(half_z, 6)),
                (round(rm * math.cos(a), 6), round(rm * math.sin(a), 6), round(z0 + half_z, 6)),
                rgba,
                collide,
                euler=(0.0, 0.0, round(a, 9)),
                rim=collide,
            )
        )
    return parts


def chiffon_cake(size: Vec3, rgba: RGBA, *, hole: RGBA) -> tuple[Part, ...]:
    """A chiffon cake: a ring of ``size`` (:func:`_torus`) with its tube's hole (radius
    :data:`RING_HOLE`) through it, a ``hole``-coloured band drawn inside the top; a rim
    grasp takes the ring, one finger in the tube."""
    r, _, z = size[0] / 2, size[1], size[2]
    return (
        *_torus(RING_HOLE, r, 0.0, z, rgba),
        *_torus(RING_HOLE + 0.001, RING_HOLE + 0.009, 0.6 * z, 0.995 * z, hole, collide=False),
    )


def ring_cake(size: Vec3, rgba: RGBA, *, icing: RGBA | None = None, hole: RGBA) -> tuple[Part, ...]:
    """A donut or a bagel: a ring of ``size`` with a real hole (radius :data:`RING_HOLE`),
    the torus-like body of :func:`_torus`; an optional ``icing`` (drawn) covers its top. A
    rim grasp takes the ring, one finger in the hole. ``hole`` is unused (the table shows
    through the hole)."""
    x, _, z = size
    r = x / 2
    if icing is None:  # a bagel
        return tuple(_torus(RING_HOLE, r, 0.0, z, rgba))
    return (
        *_torus(RING_HOLE, r, 0.0, 0.96 * z, rgba),
        *_torus(RING_HOLE + 0.002, r - 0.004, 0.12 * z, z, icing, collide=False),
    )


def teapot(size: Vec3, rgba: RGBA, *, trim: RGBA) -> tuple[Part, ...]:
    """A teapot: a body of revolution, a knob, a spout at -x, a handle of three bars at +x
    and a band (``trim``)."""
    return (
        revolved(
            (0.0, 0.0, 0.0),
            rgba,
            ((0.0, 0.0), (0.035, 0.0), (0.05, 0.035), (0.045, 0.07), (0.025, 0.08), (0.0, 0.08)),
        ),
        Part("sphere", (0.008, 0.0, 0.0), (0.0, 0.0, 0.088), trim),
        Part("capsule", (0.007, 0.018, 0.0), (-0.05, 0.0, 0.06), rgba, euler=(0.0, -0.7, 0.0)),
        Part("box", (0.012, 0.005, 0.005), (0.056, 0.0, 0.07), trim),
        Part("box", (0.012, 0.005, 0.005), (0.056, 0.0, 0.025), trim),
        Part("box", (0.005, 0.005, 0.027), (0.068, 0.0, 0.0475), trim),
        Part("cylinder", (0.051, 0.008, 0.0), (0.0, 0.0, 0.035), trim, False),
    )


def vase(size: Vec3, rgba: RGBA, *, mouth: RGBA) -> tuple[Part, ...]:
    """A vase: a body and a neck of revolution, the mouth drawn on top."""
    z = size[2]
    return (
        revolved(
            (0.0, 0.0, 0.0),
            rgba,
            ((0.0, 0.0), (0.03, 0.0), (0.045, 0.06), (0.035, 0.13), (0.0, 0.13)),
        ),
        revolved((0.0, 0.0, 0.125), rgba, ((0.0, 0.0), (0.022, 0.0), (0.03, 0.055), (0.0, 0.055))),
        Part("cylinder", (0.024, 0.0005, 0.0), (0.0, 0.0, z), mouth, False),
    )


def lidded_box(size: Vec3, rgba: RGBA, *, lid: RGBA) -> tuple[Part, ...]:
    """A closed storage box: a solid box and the rim of its lid (drawn)."""
    x, y, z = size
    return (
        Part("box", (x / 2, y / 2, z / 2), (0.0, 0.0, z / 2), rgba),
        Part(
            "box",
            (round(x / 2 + 0.002, 6), round(y / 2 + 0.002, 6), 0.004),
            (0.0, 0.0, round(z - 0.004, 6)),
            lid,
            False,
        ),
    )


def candle(size: Vec3, rgba: RGBA, *, wick: RGBA) -> tuple[Part, ...]:
    """A pillar candle and its wick (drawn)."""
    r = size[0] / 2
    return (
        Part("cylinder", (r, 0.037, 0.0), (0.0, 0.0, 0.037), rgba),
        Part("cylinder", (0.0015, 0.005, 0.0), (0.0, 0.0, 0.077), wick, False),
    )


def toy_mouse(size: Vec3, rgba: RGBA, *, base: RGBA, head: RGBA, face: RGBA) -> tuple[Part, ...]:
    """A toy mouse figure: a base, a body (``rgba``), a head with two round ears and a face
    (drawn)."""
    return (
        Part("box", (0.072, 0.06, 0.005), (0.0, 0.0, 0.005), base),
        Part("ellipsoid", (0.045, 0.04, 0.05), (0.0, 0.0, 0.06), rgba),
        Part("sphere", (0.045, 0.0, 0.0), (0.0, 0.0, 0.12), head),
        Part(
            "cylinder",
            (0.03, 0.004, 0.0),
            (0.0, 0.055, 0.14),
            head,
            False,
            euler=(0.0, math.pi / 2, 0.0),
        ),
        Part(
            "cylinder",
            (0.03, 0.004, 0.0),
            (0.0, -0.055, 0.14),
            head,
            False,
            euler=(0.0, math.pi / 2, 0.0),
        ),
        Part("ellipsoid", (0.014, 0.028, 0.018), (-0.038, 0.0, 0.112), face, False),
    )
