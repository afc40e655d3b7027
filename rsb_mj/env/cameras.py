"""Offscreen camera rendering: one ``mujoco.Renderer`` per image size, upright images.

``mujoco.Renderer.render`` already returns images upright (row 0 at the top), unlike raw
OpenGL buffers. Only visual geoms are drawn (groups 1 and 2; collision hulls in group 3 and
sites are hidden). The ``fast`` preset turns off shadows, reflections and multisampling;
``full`` keeps them. Without shadows and reflections, geoms wholly outside a camera's view are
not sent to OpenGL (:mod:`rsb_mj.env.culling`: the same image, about 10% less time per frame
on software GL).

Camera names: the gymnasium observation's ``images`` are keyed by the scene's camera names
(:data:`CAMERAS`: ``head``, ``left_wrist``, ``right_wrist``); everything users train on and
serve uses ALOHA's names, :data:`ALOHA_CAMERA_NAMES` (the one mapping, defined beside
:data:`CAMERAS` in :mod:`rsb_mj.workspace` so MuJoCo-free modules read it too)::

    head         ->  cam_high          LeRobot export  observation.images.cam_high
    left_wrist   ->  cam_left_wrist    openpi client   images.cam_left_wrist
    right_wrist  ->  cam_right_wrist   vla-eval        images.cam_right_wrist
"""

from __future__ import annotations

import atexit
import weakref

import mujoco
import numpy as np

from rsb_mj.env.culling import GeomBounds, cull_outside_view
from rsb_mj.errors import EnvError
from rsb_mj.scene.gl import patch_late_import
from rsb_mj.scene.plates import sync_textures
from rsb_mj.workspace import CAMERAS

__all__ = ["CameraRig", "check_cameras"]


#: Every live rig, closed at interpreter exit while EGL is still usable (an unclosed
#: ``mujoco.Renderer`` otherwise prints EGL errors from ``__del__`` during shutdown). The hook
#: is registered after the first GL context exists, so it runs before MuJoCo's own EGL
#: teardown (atexit runs hooks in reverse order of registration).
_LIVE_RIGS: weakref.WeakSet[CameraRig] = weakref.WeakSet()
_HOOKED: list[bool] = []


def _close_live_rigs() -> None:
    for rig in list(_LIVE_RIGS):
        rig.close()


#: Largest width or height of one view [px] (MuJoCo's offscreen buffer; 4K).
MAX_SIDE = 4096


def check_cameras(cameras: tuple[str, ...], width: int, height: int) -> None:
    """Refuse camera names outside :data:`CAMERAS` and an image size [px] outside 1x1 to
    :data:`MAX_SIDE` x :data:`MAX_SIDE` (a larger offscreen buffer fails on every reset).

    Raises:
        EnvError: naming the unknown cameras and the valid choices, or the size.
    """
    unknown = [c for c in cameras if c not in CAMERAS]
    if unknown:
        raise EnvError(f"unknown cameras {unknown}; valid choices: {', '.join(CAMERAS)}")
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise EnvError(
            f"image size {width}x{height}: width and height must be 1..{MAX_SIDE} pixels"
        )


class CameraRig:
    """Renders a fixed list of cameras of one model at one size.

    ``cull=False`` draws every geom, also those outside the view (the same images, slower:
    for tests of :mod:`rsb_mj.env.culling`).
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        cameras: tuple[str, ...],
        width: int,
        height: int,
        quality: str,
        *,
        cull: bool = True,
    ) -> None:
        check_cameras(cameras, width, height)
        self.cameras = tuple(cameras)
        self.width, self.height = int(width), int(height)
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, self.width)
        model.vis.global_.offheight = max(model.vis.global_.offheight, self.height)
        if quality == "fast":
            model.vis.quality.offsamples = 0
        self.option = mujoco.MjvOption()
        self.option.geomgroup[:] = [0, 1, 1, 0, 0, 0]
        self.option.sitegroup[:] = 0
        self._renderer: mujoco.Renderer | None = None
        self._tex_seen: dict[int, int] = {}  # plate textures uploaded (rsb_mj.scene.plates)
        self._model = model
        self._quality = quality
        self._bounds = GeomBounds(model) if cull else None

    def _get(self) -> mujoco.Renderer:
        if self._renderer is None:
            patch_late_import()
            self._renderer = mujoco.Renderer(self._model, self.height, self.width)
            _LIVE_RIGS.add(self)
            if not _HOOKED:
                atexit.register(_close_live_rigs)
                _HOOKED.append(True)
            if self._quality == "fast":
                flags = self._renderer.scene.flags
                flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
                flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
                flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = False
        return self._renderer

    def render(self, data: mujoco.MjData, camera: str) -> np.ndarray:
        """One upright uint8 image (height, width, 3) of ``camera``."""
        renderer = self._get()
        sync_textures(self._model, renderer, self._tex_seen)
        renderer.update_scene(data, camera=camera, scene_option=self.option)
        if self._bounds is not None:
            cull_outside_view(renderer.scene, data, self._bounds, self.width / self.height)
        return renderer.render()

    def render_all(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        """Images of every camera of the rig, by name."""
        return {cam: self.render(data, cam) for cam in self.cameras}

    def close(self) -> None:
        """Free the GL context."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
            self._tex_seen = {}
