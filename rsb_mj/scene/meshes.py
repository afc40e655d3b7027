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
#: Vertices closer than this are merged before decimation [mesh units; m for the scaled
#: robot]. CAD exports split surfaces into patches whose border vertices nearly coincide;
#: the simplifier cannot collapse such borders, so unwelded meshes stall at 30-60% of their
#: triangles (robosuite's Aloha D405 camera: 24,844 -> 15,520 unwelded, -> 2,644 welded).
WELD_TOLERANCE = 1e-4


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
    # heavy: scipy.spatial, only for a convex hull
    from scipy.spatial import ConvexHull

    hull = ConvexHull(mesh.vertices)
    used = np.unique(hull.simplices)
    remap = np.full(len(mesh.vertices), -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    return TriMesh(mesh.vertices[used], remap[hull.simplices].astype(np.int32))


def weld(mesh: TriMesh, tolerance: float = WELD_TOLERANCE) -> TriMesh:
    """``mesh`` with vertices within ``tolerance`` (per axis grid cell) merged to their mean.

    Triangles that collapse to an edge or a point are dropped.
    """
    cells = np.round(mesh.vertices / tolerance).astype(np.int64)
    _, inverse = np.unique(cells, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    count = np.bincount(inverse)
    verts = np.zeros((len(count), 3))
    np.add.at(verts, inverse, mesh.vertices)
    verts /= count[:, None]
    faces = inverse[mesh.faces].astype(np.int32)
    a, b, c = faces.T
    return TriMesh(verts, faces[(a != b) & (b != c) & (a != c)])


def decimate(mesh: TriMesh) -> TriMesh:
    """``mesh`` with up to ``DECIMATE_REDUCTION`` of its triangles removed if it is large.

    Candidates are decimations of the mesh as read and of the mesh welded (see
    ``WELD_TOLERANCE``), at several reductions; the one
    with the fewest triangles whose bounding box stays within ``SHAPE_TOLERANCE`` of the
    original wins (thin parts such as finger tips must not collapse). With no such
    candidate the welded mesh is returned if it is smaller, else ``mesh``.
    """
    if len(mesh.faces) <= DECIMATE_ABOVE:
        return mesh
    # heavy: fast_simplification, only for the fast render preset
    import fast_simplification

    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    welded = weld(mesh)
    best = welded if len(welded.faces) < len(mesh.faces) else mesh
    for source in (mesh, welded):
        for reduction in (DECIMATE_REDUCTION, 0.9, 0.8, 0.6):
            verts, faces = fast_simplification.simplify(
                source.vertices.astype(np.float32), source.faces, target_reduction=reduction
            )
            if not len(verts) or len(faces) >= len(best.faces):
                continue
            verts = np.asarray(verts, dtype=np.float64)
            moved = max(np.abs(verts.min(axis=0) - lo).max(), np.abs(verts.max(axis=0) - hi).max())
            if moved <= SHAPE_TOLERANCE:
                best = TriMesh(verts, np.asarray(faces, dtype=np.int32))
                break  # gentler reductions of this source only keep more triangles
    return best
