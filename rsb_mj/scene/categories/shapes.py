"""Geometry helpers for procedural object categories (ours: no third-party assets).

Procedural categories are built from MuJoCo primitives and from meshes generated here:
surfaces of revolution (fruit, bowls, mugs, handles) given as a ``(radius, z)`` profile.
Generated meshes are added to the spec once per category (shared by every object of it).

Frames: body frame of the object, metres, z up; a revolved profile turns about body z
(or about body x with :func:`lay_along_x`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import collision_defaults

#: Sides of a revolved mesh's rings (smooth enough at 2 mm per pixel, few triangles).
SEGMENTS = 24

#: Fixed colors [rgba] of parts that do not take the episode color.
STEM_BROWN = (0.35, 0.22, 0.1, 1.0)
LEAF_GREEN = (0.2, 0.45, 0.15, 1.0)
METAL_GRAY = (0.55, 0.57, 0.6, 1.0)
RUBBER_BLACK = (0.1, 0.1, 0.1, 1.0)


def revolve(
    profile: Sequence[tuple[float, float]], segments: int = SEGMENTS, phase: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """A closed triangle mesh: ``profile`` turned about body z.

    Args:
        profile: ``(radius, z)`` points [m], starting and ending on the axis (radius 0);
            a profile that goes up along its outer side gives outward-facing triangles.
        segments: vertices per ring (6 or 8 give prisms).
        phase: angle [rad] of each ring's first vertex from body +x.

    Returns:
        vertices (V, 3) [m] and faces (F, 3), counter-clockwise seen from outside.
    """
    pts = np.asarray(profile, dtype=float)
    if pts[0, 0] != 0.0 or pts[-1, 0] != 0.0:
        raise ValueError("a revolved profile starts and ends on the axis (radius 0)")
    angles = phase + 2.0 * np.pi * np.arange(segments) / segments
    verts: list[np.ndarray] = []
    rings: list[list[int]] = []
    for r, z in pts:
        start = len(verts)
        if r == 0.0:
            verts.append(np.array([0.0, 0.0, z]))
            rings.append([start])
        else:
            verts.extend(np.array([r * np.cos(a), r * np.sin(a), z]) for a in angles)
            rings.append(list(range(start, start + segments)))
    faces: list[tuple[int, int, int]] = []
    for lo, hi in itertools.pairwise(rings):
        for k in range(segments):
            a0, a1 = lo[k % len(lo)], lo[(k + 1) % len(lo)]
            b0, b1 = hi[k % len(hi)], hi[(k + 1) % len(hi)]
            if a0 != a1:
                faces.append((a0, a1, b1))
            if b0 != b1:
                faces.append((a0, b1, b0))
    return np.array(verts), np.array(faces, dtype=np.int32)


def capsule_hull(
    a: np.ndarray, b: np.ndarray, radius: float, rings: int = 6
) -> tuple[np.ndarray, np.ndarray]:
    """A convex mesh of the capsule from point ``a`` to ``b`` (3,) [m] of ``radius`` [m]:
    the hull of two latitude-longitude spheres (:data:`SEGMENTS` meridians, ``rings``
    parallels each), so its vertices bound it exactly (unlike a rotated capsule's box)."""
    # heavy: scipy.spatial, only for a convex hull
    from scipy.spatial import ConvexHull

    lat = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)[1:-1]
    lon = 2.0 * np.pi * np.arange(SEGMENTS) / SEGMENTS
    sphere = [(0.0, 0.0, -1.0), (0.0, 0.0, 1.0)]
    sphere += [(np.cos(t) * np.cos(p), np.cos(t) * np.sin(p), np.sin(t)) for t in lat for p in lon]
    unit = np.array(sphere)
    pts = np.concatenate([np.asarray(a) + radius * unit, np.asarray(b) + radius * unit])
    hull = ConvexHull(pts)
    used = np.unique(hull.simplices)
    remap = np.full(len(pts), -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    faces = remap[hull.simplices]
    # Orient every triangle outward (qhull's order is arbitrary).
    center = pts[used].mean(axis=0)
    v = pts[used]
    normal = np.cross(v[faces[:, 1]] - v[faces[:, 0]], v[faces[:, 2]] - v[faces[:, 0]])
    inward = np.einsum("ij,ij->i", normal, v[faces[:, 0]] - center) < 0
    faces[inward] = faces[inward][:, ::-1]
    return v, faces.astype(np.int32)


def lay_along_x(verts: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mesh turned so its z axis lies along body +x (x goes to -z); winding kept."""
    turned = np.column_stack([verts[:, 2], verts[:, 1], -verts[:, 0]])
    return turned, faces


def add_mesh(
    spec: mujoco.MjSpec,
    name: str,
    verts: np.ndarray,
    faces: np.ndarray,
    scale: Sequence[float] = (1.0, 1.0, 1.0),
) -> str:
    """Add mesh ``name`` to ``spec`` unless it is there already; returns its name."""
    if spec.mesh(name) is None:
        mesh = spec.add_mesh(name=name)
        mesh.uservert = (np.asarray(verts) * np.asarray(scale)).ravel().tolist()
        mesh.userface = np.asarray(faces).ravel().tolist()
    return name


def solid(body: mujoco.MjsBody, name: str, density: float, **kw) -> mujoco.MjsGeom:
    """A visible geom that collides (takes the episode color unless ``rgba`` is set)."""
    geom = body.add_geom(name=name, group=2, **kw)
    collision_defaults(geom, density=density)
    return geom


def hull(body: mujoco.MjsBody, name: str, density: float, **kw) -> mujoco.MjsGeom:
    """An invisible collision geom (group 3), for a shape drawn by other geoms."""
    geom = body.add_geom(name=name, group=3, rgba=[0, 0, 0, 0], **kw)
    collision_defaults(geom, density=density)
    return geom


def visual(body: mujoco.MjsBody, name: str, **kw) -> mujoco.MjsGeom:
    """A geom that is only drawn: no contacts, no mass."""
    return body.add_geom(name=name, group=2, contype=0, conaffinity=0, density=0.0, **kw)
