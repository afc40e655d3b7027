"""Mesh preprocessing: binary STL reading, convex hulls and decimated visual meshes.

MuJoCo collides mesh geoms through their convex hull, so a collision mesh can be replaced by
its hull vertices without changing the physics, and compiles much faster. Visual meshes are
decimated with ``fast-simplification`` for the ``fast`` quality preset (rendering on software
GL is dominated by triangle count once shadows and multisampling are off).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rsb_mj.errors import SceneError

#: Meshes with more triangles than this are decimated for the ``fast`` preset.
DECIMATE_ABOVE = 2000
#: Fraction of triangles removed from a decimated mesh (first try).
DECIMATE_REDUCTION = 0.95
#: Largest bounding-box change a decimation may cause [mesh units; m for the scaled robot].
SHAPE_TOLERANCE = 0.002


@dataclass(frozen=True)
class TriMesh:
    """A triangle mesh: ``vertices`` (V, 3) float64 in the mesh's own units, ``faces`` (F, 3)."""

    vertices: np.ndarray
    faces: np.ndarray


def read_stl(path: Path) -> TriMesh:
    """Read a binary STL file and merge duplicate vertices.

    Raises:
        SceneError: if the file is not a binary STL.
    """
    data = Path(path).read_bytes()
    if len(data) < 84:
        raise SceneError(f"{path}: not a binary STL file (too short)")
    count = int(np.frombuffer(data, dtype="<u4", count=1, offset=80)[0])
    if len(data) != 84 + 50 * count:
        raise SceneError(f"{path}: not a binary STL file ({count} triangles, {len(data)} bytes)")
    record = np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    tris = np.frombuffer(data, dtype=record, count=count, offset=84)["v"].reshape(-1, 3)
    verts, inverse = np.unique(tris, axis=0, return_inverse=True)
    faces = inverse.reshape(-1, 3).astype(np.int32)
    a, b, c = faces.T
    keep = (a != b) & (b != c) & (a != c)
    return TriMesh(verts.astype(np.float64), faces[keep])


def convex_hull(mesh: TriMesh) -> TriMesh:
    """The convex hull of ``mesh`` (what MuJoCo collides with)."""
    from scipy.spatial import ConvexHull

    hull = ConvexHull(mesh.vertices)
    used = np.unique(hull.simplices)
    remap = np.full(len(mesh.vertices), -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    return TriMesh(mesh.vertices[used], remap[hull.simplices].astype(np.int32))


def decimate(mesh: TriMesh) -> TriMesh:
    """``mesh`` with up to ``DECIMATE_REDUCTION`` of its triangles removed if it is large.

    A decimation that moves the bounding box by more than ``SHAPE_TOLERANCE`` (thin parts
    such as finger tips collapse) is retried with gentler reductions, down to none.
    """
    if len(mesh.faces) <= DECIMATE_ABOVE:
        return mesh
    import fast_simplification

    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    for reduction in (DECIMATE_REDUCTION, 0.85, 0.6):
        verts, faces = fast_simplification.simplify(
            mesh.vertices.astype(np.float32), mesh.faces, target_reduction=reduction
        )
        verts = np.asarray(verts, dtype=np.float64)
        if (
            len(verts)
            and max(np.abs(verts.min(axis=0) - lo).max(), np.abs(verts.max(axis=0) - hi).max())
            <= SHAPE_TOLERANCE
        ):
            return TriMesh(verts, np.asarray(faces, dtype=np.int32))
    return mesh
