"""Choose MuJoCo's offscreen OpenGL backend before MuJoCo is imported, and name what draws.

``MUJOCO_GL`` set by the user wins. Otherwise EGL is used when its library is present
(headless machines with Mesa), else OSMesa (``apt-get install libosmesa6``), else MuJoCo's
default (GLFW, needs a display).

:func:`active_backend` names the backend MuJoCo's renderer actually uses (after
:func:`patch_late_import`), :func:`gl_strings` the vendor, renderer and version strings of the
current OpenGL context (what :mod:`rsb_mj.scene.fingerprint` records with every run).
"""

from __future__ import annotations

import ctypes.util
import os
import sys

#: Headless backends in order of preference, with the library each needs.
_LIBRARIES = {"egl": "EGL", "osmesa": "OSMesa"}


def library_present(backend: str) -> bool:
    """True when the system library of the headless ``backend`` (``"egl"``: libEGL,
    ``"osmesa"``: libOSMesa, from ``apt-get install libosmesa6``) can be found."""
    return bool(ctypes.util.find_library(_LIBRARIES[backend]))


def choose_gl_backend() -> str:
    """Set ``MUJOCO_GL`` if unset and return its value ("" when left to MuJoCo)."""
    if os.environ.get("MUJOCO_GL"):
        return os.environ["MUJOCO_GL"]
    for backend in _LIBRARIES:
        if library_present(backend):
            os.environ["MUJOCO_GL"] = backend
            if backend == "osmesa":
                os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
            return backend
    return ""


def patch_late_import() -> None:
    """Switch ``mujoco.Renderer`` to EGL/OSMesa if MuJoCo was imported before the backend
    was chosen and there is no display (GLFW would fail with "gladLoadGL error")."""

    if os.environ.get("DISPLAY") or "mujoco" not in sys.modules:
        return
    # deferred: MuJoCo reads MUJOCO_GL when it loads (choose_gl_backend first)
    from mujoco.rendering.classic import gl_context

    current = getattr(gl_context, "GLContext", None)
    if current is None or "glfw" not in getattr(current, "__module__", ""):
        return
    backend = os.environ.get("MUJOCO_GL") or choose_gl_backend()
    if backend == "egl":
        os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
        from mujoco.egl import GLContext
    elif backend == "osmesa":
        os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
        from mujoco.osmesa import GLContext
    else:
        return
    gl_context.GLContext = GLContext


def active_backend() -> str:
    """The backend ``mujoco.Renderer`` creates its contexts with: ``"egl"``, ``"osmesa"``,
    ``"glfw"`` (or ``"cgl"``/``"wgl"`` elsewhere), from the module of MuJoCo's ``GLContext``;
    ``"none"`` when rendering is disabled (``MUJOCO_GL=disable``). Imports MuJoCo."""
    patch_late_import()
    # deferred: MuJoCo reads MUJOCO_GL when it loads (choose_gl_backend first)
    from mujoco.rendering.classic import gl_context

    current = getattr(gl_context, "GLContext", None)
    if current is None:
        return "none"
    module = current.__module__  # "mujoco.egl", "mujoco.osmesa", "mujoco.glfw", ...
    return module.split(".")[1] if module.startswith("mujoco.") else module


def gl_strings() -> tuple[str, str, str]:
    """``(GL_VENDOR, GL_RENDERER, GL_VERSION)`` of the OpenGL context current in this thread
    (e.g. ``("Mesa/X.org", "llvmpipe (LLVM 15.0.6, 256 bits)", "4.5 (Compatibility Profile)
    Mesa 22.3.6")``); ``""`` for a string the driver does not give."""
    # heavy: PyOpenGL, only for rsb doctor's GL strings
    from OpenGL import GL

    def read(name: int) -> str:
        value = GL.glGetString(name)
        return value.decode(errors="replace") if value else ""

    return read(GL.GL_VENDOR), read(GL.GL_RENDERER), read(GL.GL_VERSION)
