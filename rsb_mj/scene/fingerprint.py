"""The renderer fingerprint: what drew the pixels a policy saw.

Two machines with the same rsb_mj and mujoco versions can still draw different pixels (a GPU
driver against Mesa's software rasterizer, another Mesa version), and success rates move with
the pixels. A :class:`RendererFingerprint` names the OpenGL stack of this process: the backend
MuJoCo renders with (``egl``, ``osmesa``, ``glfw``), the context's ``GL_VENDOR``,
``GL_RENDERER`` and ``GL_VERSION`` strings, and the sha256 of a *reference render*: a small
fixed scene (a textured floor, four lit primitives, one of them translucent, a shadow) drawn
at :data:`REFERENCE_SIZE` without multisampling. Two renderers with the same fingerprint drew
that frame byte for byte alike; the fingerprint's :attr:`~RendererFingerprint.id` is the
sha256 of all of it, the key ``rsb report`` refuses to pool runs across.

:func:`renderer_fingerprint` takes it once per process (0.5-0.8 s on Mesa's llvmpipe: one tiny GL
context and its first draw).
Where no GL context can be made (no display for GLFW, ``MUJOCO_GL=disable``, a missing
library) the fingerprint says so in ``error`` instead of raising: a run whose policy reads no
camera needs no renderer.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from functools import cache
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import RsbError
from rsb_mj.scene.gl import active_backend, gl_strings

__all__ = [
    "REFERENCE_SIZE",
    "RendererFingerprint",
    "reference_render",
    "reference_spec",
    "renderer_fingerprint",
]

#: (width, height) [px] of the reference render.
REFERENCE_SIZE = (96, 72)
#: Side [px] of the reference floor texture (a checker over a colour gradient).
_TEXTURE_SIDE = 64


@dataclass(frozen=True)
class RendererFingerprint:
    """The OpenGL stack of one process and what it draws.

    Attributes:
        backend: ``"egl"``, ``"osmesa"``, ``"glfw"`` (MuJoCo's GL backend; ``"none"`` when
            rendering is disabled).
        vendor, renderer, version: the context's ``GL_VENDOR``, ``GL_RENDERER`` and
            ``GL_VERSION`` strings ("" when no context could be made).
        reference_sha256: sha256 of the reference render's RGB bytes; "" when no context
            could be made.
        error: why no context could be made, one line; "" when the reference was drawn.
    """

    backend: str
    vendor: str
    renderer: str
    version: str
    reference_sha256: str
    error: str = ""

    @property
    def id(self) -> str:
        """First 16 hex digits of the sha256 of every field: equal ids, equal renderers."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, str]:
        """The fields and ``id``, for run.json and a record's ``sim["renderer"]``."""
        return {"id": self.id, **asdict(self)}

    @classmethod
    def from_dict(cls, row: Any, *, where: str = "") -> RendererFingerprint:
        """Inverse of :meth:`to_dict` (``id`` is recomputed, so it must match).

        Raises:
            RsbError: naming ``where`` and the field that is missing, not a string, or the
                ``id`` that does not match the fields.
        """
        if not isinstance(row, dict):
            raise RsbError(f"{where}: a renderer fingerprint must be an object")
        values = {}
        for f in fields(cls):
            value = row.get(f.name, "" if f.name == "error" else None)
            if not isinstance(value, str):
                raise RsbError(f"{where}: renderer field {f.name!r} must be a string")
            values[f.name] = value
        fingerprint = cls(**values)
        if "id" in row and row["id"] != fingerprint.id:
            raise RsbError(
                f"{where}: renderer id {row['id']!r} does not match its fields "
                f"(they give {fingerprint.id!r})"
            )
        return fingerprint

    def describe(self) -> str:
        """One line: ``egl, Mesa/X.org llvmpipe (...), OpenGL 4.5 (...); reference render
        639f83801698``, or the backend and why it could not draw."""
        if self.error:
            return f"{self.backend}, no GL context ({self.error})"
        return (
            f"{self.backend}, {self.vendor} {self.renderer}, OpenGL {self.version}; "
            f"reference render {self.reference_sha256[:12]}"
        )


def _floor_texture() -> np.ndarray:
    """(side, side, 3) uint8: an 8x8 checker over a red/blue gradient (texture filtering)."""
    side = _TEXTURE_SIDE
    ramp = np.linspace(40, 215, side)
    checker = ((np.arange(side)[:, None] // 8 + np.arange(side)[None, :] // 8) % 2) * 40.0
    red, blue = ramp[None, :] + checker, ramp[::-1, None] + checker
    image = np.stack([red, np.full((side, side), 90.0) + checker, blue], axis=-1)
    return np.clip(image, 0, 255).astype(np.uint8)


def reference_spec() -> Any:
    """The reference scene as a ``mujoco.MjSpec``: a textured floor, a box, a sphere, a
    tilted capsule and a translucent cylinder, a shadow-casting spot light and a directional
    fill light, and the camera ``ref`` 1.2 m from the origin looking down 40 degrees."""

    spec = mujoco.MjSpec()
    width, height = REFERENCE_SIZE
    spec.visual.global_.offwidth, spec.visual.global_.offheight = width, height
    tex = spec.add_texture(
        name="floor",
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        width=_TEXTURE_SIDE,
        height=_TEXTURE_SIDE,
        nchannel=3,
    )
    tex.data = _floor_texture().tobytes()
    mat = spec.add_material(name="floor", rgba=[1.0, 1.0, 1.0, 1.0], texrepeat=[3.0, 3.0])
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "floor"
    world = spec.worldbody
    world.add_light(
        name="spot", pos=[0.3, -0.4, 1.5], dir=[-0.2, 0.3, -1.0], castshadow=True, cutoff=60.0
    )
    world.add_light(
        name="fill",
        type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL,
        dir=[0.5, 0.5, -1.0],
        diffuse=[0.3, 0.3, 0.3],
        castshadow=False,
    )
    world.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[1.0, 1.0, 0.1], material="floor")
    shapes = (
        (mujoco.mjtGeom.mjGEOM_BOX, [0.08, 0.08, 0.08], [0.0, 0.0, 0.08], [0.9, 0.2, 0.2, 1.0]),
        (mujoco.mjtGeom.mjGEOM_SPHERE, [0.09, 0, 0], [0.25, 0.1, 0.09], [0.2, 0.8, 0.3, 1.0]),
        (mujoco.mjtGeom.mjGEOM_CAPSULE, [0.04, 0.1, 0], [-0.25, 0.1, 0.1], [0.2, 0.3, 0.9, 1.0]),
        (mujoco.mjtGeom.mjGEOM_CYLINDER, [0.07, 0.1, 0], [0.05, 0.3, 0.1], [0.9, 0.8, 0.1, 0.5]),
    )
    for kind, size, pos, rgba in shapes:
        geom = world.add_geom(type=kind, size=size, pos=pos, rgba=rgba)
        if kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
            geom.quat = [0.924, 0.3, 0.2, 0.0]
    world.add_camera(name="ref", pos=[0.0, -0.92, 0.77], xyaxes=[1, 0, 0, 0, 0.643, 0.766])
    return spec


def reference_render() -> tuple[np.ndarray, tuple[str, str, str], str]:
    """Draw the reference scene in a fresh GL context: the ``fast`` preset (no
    multisampling, what runs draw by default) with the spot light's shadow on, so textures,
    lighting, shadow mapping and blending all reach the pixels.

    Returns:
        (frame, strings, backend): the uint8 (height, width, 3) frame, the
        :func:`~rsb_mj.scene.gl.gl_strings` of its context and the
        :func:`~rsb_mj.scene.gl.active_backend`.
    """

    backend = active_backend()
    model = reference_spec().compile()
    model.vis.quality.offsamples = 0
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    width, height = REFERENCE_SIZE
    renderer = mujoco.Renderer(model, height, width)
    try:
        flags = renderer.scene.flags
        flags[mujoco.mjtRndFlag.mjRND_SHADOW] = True
        flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = False
        renderer.update_scene(data, camera="ref")
        frame = renderer.render()
        strings = gl_strings()  # the renderer's context is current after render()
    finally:
        renderer.close()
    return frame, strings, backend


@cache
def renderer_fingerprint() -> RendererFingerprint:
    """The fingerprint of this process's renderer, taken once (see the module docstring).

    Never raises: a failure to draw is recorded in ``error``.
    """
    try:
        frame, (vendor, renderer, version), backend = reference_render()
    except Exception as exc:  # any GL failure is recorded, not raised
        backend = (os.environ.get("MUJOCO_GL") or "glfw").lower()
        cause = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        return RendererFingerprint(backend, "", "", "", "", error=cause)
    digest = hashlib.sha256(frame.tobytes()).hexdigest()
    return RendererFingerprint(backend, vendor, renderer, version, digest)
