"""Frustum culling of whole geoms before an offscreen render, with the same image.

On software OpenGL (Mesa's llvmpipe, the renderer of machines without a GPU) a frame's cost
is set by the triangles sent, not by the pixels drawn: a geom wholly outside the camera's
view costs as much as a visible one (vertex lighting, clipping), and MuJoCo's renderer sends
every geom of the scene. :func:`cull_outside_view` marks the geoms of a built
:class:`mujoco.MjvScene` whose bounding sphere lies entirely outside one plane of the
camera's view frustum as not drawn (``type = mjGEOM_NONE``, which ``mjr_render`` skips). Such
a geom produces no fragment, so the image is the same pixel for pixel; the geoms drawn keep
their order.

Only opaque, non-reflective mesh and box geoms are culled, and only when neither shadows nor
reflections are rendered (a geom outside the view can cast a shadow into it or be seen in a
mirror). The bounding spheres are centred on the geom frame, which is the frame MuJoCo draws
the geom in: a mesh's radius is its farthest vertex, a box's its half-diagonal, widened by
:data:`MARGIN_REL` and :data:`MARGIN_ABS` against single-precision rounding.
"""

from __future__ import annotations

import mujoco
import numpy as np

__all__ = ["GeomBounds", "cull_outside_view"]

#: Relative widening of every bounding radius (single-precision poses and transforms).
MARGIN_REL = 1e-3
#: Absolute widening of every bounding radius [m].
MARGIN_ABS = 1e-4
#: Smallest alpha MuJoCo draws as opaque (``mjr_render`` treats lower ones as transparent).
OPAQUE_ALPHA = 0.995

_MESH = int(mujoco.mjtGeom.mjGEOM_MESH)
_BOX = int(mujoco.mjtGeom.mjGEOM_BOX)
_NONE = int(mujoco.mjtGeom.mjGEOM_NONE)
_SHADOW = mujoco.mjtRndFlag.mjRND_SHADOW
_REFLECTION = mujoco.mjtRndFlag.mjRND_REFLECTION
_SEGMENT = mujoco.mjtRndFlag.mjRND_SEGMENT


class GeomBounds:
    """Bounding radii [m] of a model's meshes about their frames, computed once per model.

    Args:
        model: the compiled model whose scenes are culled.
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        radii = np.zeros(model.nmesh)
        for mesh in range(model.nmesh):
            start, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
            verts = np.asarray(model.mesh_vert[start : start + count], dtype=np.float64)
            radii[mesh] = np.linalg.norm(verts, axis=1).max() if count else 0.0
        self.mesh_radius = radii

    def radius(self, geom: mujoco.MjvGeom) -> float | None:
        """The bounding radius [m] of a scene geom, widened by the margins; None for a geom
        that is never culled (another type, transparent, reflective)."""
        if geom.rgba[3] < OPAQUE_ALPHA or geom.reflectance > 0:
            return None
        if geom.type == _MESH and geom.dataid >= 0:
            r = float(self.mesh_radius[geom.dataid // 2])  # dataid: 2 * mesh (+1 for hulls)
        elif geom.type == _BOX:
            r = float(np.linalg.norm(np.asarray(geom.size, dtype=np.float64)))
        else:
            return None
        return r * (1 + MARGIN_REL) + MARGIN_ABS


def cull_outside_view(scene: mujoco.MjvScene, bounds: GeomBounds, aspect: float) -> int:
    """Mark the geoms of ``scene`` that lie wholly outside its camera's view as not drawn.

    Call it after ``mjv_updateScene`` (``Renderer.update_scene``) and before ``mjr_render``;
    the next scene update rebuilds every geom.

    Args:
        scene: the built scene (its mono camera: the average of ``scene.camera[0]`` and
            ``[1]``, as ``mjr_render`` uses it).
        bounds: the bounding radii of the scene's model.
        aspect: the viewport's width / height (the frustum's horizontal extent follows it
            when the camera has no ``frustum_width``).

    Returns:
        The number of geoms culled (0 with shadows, reflections or segmentation on).
    """
    flags = scene.flags
    if flags[_SHADOW] or flags[_REFLECTION] or flags[_SEGMENT] or scene.stereo:
        return 0
    cam = mujoco.mjv_averageCamera(scene.camera[0], scene.camera[1])
    forward = np.asarray(cam.forward, dtype=np.float64)
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, np.asarray(cam.up, dtype=np.float64))  # as mjr_lookAt builds it
    side /= np.linalg.norm(side)
    up = np.cross(side, forward)
    eye = np.asarray(cam.pos, dtype=np.float64)
    near, far = float(cam.frustum_near), float(cam.frustum_far)
    bottom, top = float(cam.frustum_bottom), float(cam.frustum_top)
    half = float(cam.frustum_width) or 0.5 * aspect * (top - bottom)
    left, right = float(cam.frustum_center) - half, float(cam.frustum_center) + half
    culled = 0
    for i in range(scene.ngeom):
        geom = scene.geoms[i]
        r = bounds.radius(geom)
        if r is None:
            continue
        rel = np.asarray(geom.pos, dtype=np.float64) - eye
        x, y, depth = float(rel @ side), float(rel @ up), float(rel @ forward)
        if cam.orthographic:
            outside = x - right > r or left - x > r or y - top > r or bottom - y > r
        else:  # side planes through the eye: x = k * depth with k = edge / near
            outside = (
                _beyond(x, depth, right / near, r)
                or _beyond(-x, depth, -left / near, r)
                or _beyond(y, depth, top / near, r)
                or _beyond(-y, depth, -bottom / near, r)
            )
        if outside or depth + r < near or depth - r > far:
            geom.type = _NONE
            culled += 1
    return culled


def _beyond(u: float, depth: float, k: float, r: float) -> bool:
    """Whether a sphere of radius ``r`` at lateral offset ``u`` and ``depth`` lies wholly on
    the outer side of the plane ``u = k * depth``."""
    return (u - k * depth) / np.sqrt(1.0 + k * k) > r
