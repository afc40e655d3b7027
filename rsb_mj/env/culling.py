"""Frustum culling of whole geoms before an offscreen render, with the same image.

On software OpenGL (Mesa's llvmpipe, the renderer of machines without a GPU) a frame's cost
is set by the triangles sent, not by the pixels drawn: a geom wholly outside the camera's
view costs as much as a visible one (vertex lighting, clipping), and MuJoCo's renderer sends
every geom of the scene. :func:`cull_outside_view` marks the geoms of a built
:class:`mujoco.MjvScene` whose bounding box lies entirely outside one plane of the camera's
view frustum as not drawn (``type = mjGEOM_NONE``, which ``mjr_render`` skips). Such a geom
produces no fragment, so the image is the same pixel for pixel; the geoms drawn keep their
order.

Only opaque, non-reflective mesh and box geoms of the model are culled, and only when
neither shadows, reflections nor segmentation are rendered (a geom outside the view can cast
a shadow into it or be seen in a mirror). A geom's bounding box is the box of its mesh's
vertices in the geom frame (the frame MuJoCo draws the mesh in), or the box itself, widened
by :data:`MARGIN_REL` and :data:`MARGIN_ABS` against single-precision rounding.
"""

from __future__ import annotations

import mujoco
import numpy as np

__all__ = ["GeomBounds", "cull_outside_view"]

#: Relative widening of every bounding box (single-precision poses and transforms).
MARGIN_REL = 1e-3
#: Absolute widening of every bounding box [m].
MARGIN_ABS = 1e-4
#: Smallest alpha MuJoCo draws as opaque (``mjr_render`` treats lower ones as transparent).
OPAQUE_ALPHA = 0.995

_NONE = int(mujoco.mjtGeom.mjGEOM_NONE)
_GEOM = int(mujoco.mjtObj.mjOBJ_GEOM)
_OFF_FLAGS = (
    mujoco.mjtRndFlag.mjRND_SHADOW,
    mujoco.mjtRndFlag.mjRND_REFLECTION,
    mujoco.mjtRndFlag.mjRND_SEGMENT,
)


class GeomBounds:
    """Bounding boxes of a model's mesh and box geoms in their geom frames, computed once.

    Attributes:
        cullable: (ngeom,) bool, mesh and box geoms (the only ones culled).
        center, half: (ngeom, 3) centre and half sizes [m] of each geom's box in its frame
            (zero for the others).
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        self.cullable = np.zeros(model.ngeom, dtype=bool)
        self.center = np.zeros((model.ngeom, 3))
        self.half = np.zeros((model.ngeom, 3))
        for g in range(model.ngeom):
            kind, mesh = model.geom_type[g], model.geom_dataid[g]
            if kind == mujoco.mjtGeom.mjGEOM_BOX:
                self.half[g] = model.geom_size[g]
            elif kind == mujoco.mjtGeom.mjGEOM_MESH and mesh >= 0 and model.mesh_vertnum[mesh]:
                start, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
                verts = np.asarray(model.mesh_vert[start : start + count], dtype=np.float64)
                lo, hi = verts.min(axis=0), verts.max(axis=0)
                self.center[g], self.half[g] = (lo + hi) / 2, (hi - lo) / 2
            else:
                continue
            self.cullable[g] = True
        self._cullable = self.cullable.tolist()  # fast per-geom lookups

    def may_cull(self, geom: mujoco.MjvGeom) -> bool:
        """Whether a scene geom is one of the model's mesh or box geoms, opaque and not
        reflective (a culled reflective geom would hand its reflection pass to another)."""
        return (
            geom.objtype == _GEOM
            and self._cullable[geom.objid]
            and geom.reflectance <= 0
            and geom.rgba[3] >= OPAQUE_ALPHA
        )


def cull_outside_view(
    scene: mujoco.MjvScene, data: mujoco.MjData, bounds: GeomBounds, aspect: float
) -> int:
    """Mark the geoms of ``scene`` that lie wholly outside its camera's view as not drawn.

    Call it after ``mjv_updateScene`` (``Renderer.update_scene``) with the same ``data`` and
    before ``mjr_render``; the next scene update rebuilds every geom.

    Args:
        scene: the built scene (its mono camera: the average of ``scene.camera[0]`` and
            ``[1]``, as ``mjr_render`` uses it).
        data: the data the scene was built from (geom poses).
        bounds: the bounding boxes of the scene's model.
        aspect: the viewport's width / height (the frustum's horizontal extent follows it
            when the camera has no ``frustum_width``).

    Returns:
        The number of geoms culled (0 with shadows, reflections or segmentation on).
    """
    if scene.stereo or any(scene.flags[f] for f in _OFF_FLAGS):
        return 0
    geoms = [scene.geoms[i] for i in range(scene.ngeom)]
    slots = [i for i, g in enumerate(geoms) if bounds.may_cull(g)]
    if not slots:
        return 0
    ids = np.array([geoms[i].objid for i in slots])
    rot = data.geom_xmat[ids].reshape(-1, 3, 3)
    center = data.geom_xpos[ids] + np.einsum("gij,gj->gi", rot, bounds.center[ids])
    half = bounds.half[ids] * (1 + MARGIN_REL) + MARGIN_ABS
    eye, normals, offsets = _frustum(scene, aspect)
    rel = center - eye
    # a box lies beyond a plane when its centre is farther out than its extent along the
    # plane's normal
    dist = rel @ normals.T - offsets
    extent = (np.abs(rot.transpose(0, 2, 1) @ normals.T) * half[:, :, None]).sum(axis=1)
    outside = (dist > extent).any(axis=1)
    for slot in np.asarray(slots)[outside]:
        geoms[slot].type = _NONE
    return int(outside.sum())


def _frustum(scene: mujoco.MjvScene, aspect: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The eye [m], and the outward unit normals (6, 3) and offsets (6,) [m] of the view
    frustum's planes relative to the eye (right, left, top, bottom, near, far), built as
    ``mjr_render`` builds its view (``mjr_lookAt``, ``glFrustum`` / ``glOrtho``). Plain
    float arithmetic: numpy's per-call overhead would cost more than the culling saves."""
    cam = mujoco.mjv_averageCamera(scene.camera[0], scene.camera[1])
    forward = _unit(tuple(map(float, cam.forward)))
    side = _unit(_cross(forward, tuple(map(float, cam.up))))
    up = _cross(side, forward)
    near, far = float(cam.frustum_near), float(cam.frustum_far)
    bottom, top = float(cam.frustum_bottom), float(cam.frustum_top)
    half = float(cam.frustum_width) or 0.5 * aspect * (top - bottom)
    left, right = float(cam.frustum_center) - half, float(cam.frustum_center) + half
    back = tuple(-c for c in forward)
    if cam.orthographic:  # parallel side planes at the frustum's edges
        sides = [side, tuple(-c for c in side), up, tuple(-c for c in up)]
        offsets = [right, -left, top, -bottom]
    else:  # side planes through the eye: lateral = (edge / near) * depth
        sides = [
            _unit(_combine(side, 1.0, forward, -right / near)),
            _unit(_combine(side, -1.0, forward, left / near)),
            _unit(_combine(up, 1.0, forward, -top / near)),
            _unit(_combine(up, -1.0, forward, bottom / near)),
        ]
        offsets = [0.0, 0.0, 0.0, 0.0]
    normals = np.array([*sides, back, forward])
    return np.array(cam.pos, dtype=np.float64), normals, np.array([*offsets, -near, far])


Vec = tuple[float, float, float]


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(a: Vec) -> Vec:
    n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) ** 0.5
    return (a[0] / n, a[1] / n, a[2] / n)


def _combine(a: Vec, wa: float, b: Vec, wb: float) -> Vec:
    return (wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2])
