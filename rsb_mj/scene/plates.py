"""Answer-plate textures: per-episode pictures written into the plates' content textures.

Each answer plate (category ``answer_plate``) has its own texture ``{plate}/content``
(:data:`rsb_mj.scene.pictures.TEX_W` x ``TEX_H`` RGB). :func:`write_picture` writes a
picture (:func:`rsb_mj.scene.display.apply_answers`: the one an episode's option shows)
into ``model.tex_data`` and marks the texture changed; every renderer of the model re-uploads
changed textures before its next image (:func:`sync_textures`, called by
:class:`rsb_mj.env.cameras.CameraRig`). So plates change per episode without recompiling,
and two environments with the same episode render the same pixels.
"""

from __future__ import annotations

import weakref
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.scene.pictures import TEX_H, TEX_W

#: model -> texture id -> generation (bumped on every write).
_GENERATIONS: weakref.WeakKeyDictionary[mujoco.MjModel, dict[int, int]] = (
    weakref.WeakKeyDictionary()
)


def texture_name(plate: str) -> str:
    """Name of the content texture (and material) of ``plate``."""
    return f"{plate}/content"


def add_plate_texture(spec: mujoco.MjSpec, plate: str) -> str:
    """Add the blank content texture and its material for ``plate``; returns the material
    name."""
    name = texture_name(plate)
    tex = spec.add_texture(
        name=name,
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        width=TEX_W,
        height=TEX_H,
        nchannel=3,
    )
    tex.data = np.full((TEX_H, TEX_W, 3), 255, dtype=np.uint8).tobytes()
    mat = spec.add_material(name=name, rgba=[1.0, 1.0, 1.0, 1.0])
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = name
    mat.specular = 0.0
    mat.shininess = 0.0
    mat.reflectance = 0.0
    return name


def write_picture(model: mujoco.MjModel, plate: str, image: np.ndarray) -> None:
    """Write an RGB (TEX_H, TEX_W, 3) image into ``plate``'s texture (row 0: far edge).

    Raises:
        SceneError: when the model has no content texture for ``plate``.
    """
    try:
        tex = model.texture(texture_name(plate)).id
    except KeyError:
        raise SceneError(f"no answer plate {plate!r} with a content texture") from None
    adr = int(model.tex_adr[tex])
    size = TEX_W * TEX_H * 3
    # A box's top face shows texture row 0 at its far (+y) edge and column 0 at -x.
    model.tex_data[adr : adr + size] = np.ascontiguousarray(image).reshape(-1)
    gens = _GENERATIONS.setdefault(model, {})
    gens[tex] = gens.get(tex, 0) + 1


def sync_textures(model: mujoco.MjModel, renderer: Any, seen: dict[int, int]) -> None:
    """Upload to ``renderer``'s GL context the textures written since it last looked
    (``seen``: texture id -> generation uploaded, updated in place)."""
    gens = _GENERATIONS.get(model)
    if not gens:
        return
    stale = [t for t, g in gens.items() if seen.get(t) != g]
    if not stale:
        return
    context = getattr(renderer, "_mjr_context", None)
    if context is None:
        return
    gl = getattr(renderer, "_gl_context", None)
    if gl is not None:
        gl.make_current()
    for tex in stale:
        mujoco.mjr_uploadTexture(model, context, tex)
        seen[tex] = gens[tex]


__all__ = ["add_plate_texture", "sync_textures", "texture_name", "write_picture"]
