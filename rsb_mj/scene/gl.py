"""Choose MuJoCo's offscreen OpenGL backend before MuJoCo is imported.

``MUJOCO_GL`` set by the user wins. Otherwise EGL is used when its library is present
(headless machines with Mesa), else OSMesa (``apt-get install libosmesa6``), else MuJoCo's
default (GLFW, needs a display).
"""

from __future__ import annotations

import ctypes.util
import os


def choose_gl_backend() -> str:
    """Set ``MUJOCO_GL`` if unset and return its value ("" when left to MuJoCo)."""
    if os.environ.get("MUJOCO_GL"):
        return os.environ["MUJOCO_GL"]
    for backend, library in (("egl", "EGL"), ("osmesa", "OSMesa")):
        if ctypes.util.find_library(library):
            os.environ["MUJOCO_GL"] = backend
            if backend == "osmesa":
                os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
            return backend
    return ""


def patch_late_import() -> None:
    """Switch ``mujoco.Renderer`` to EGL/OSMesa if MuJoCo was imported before the backend
    was chosen and there is no display (GLFW would fail with "gladLoadGL error")."""
    import sys

    if os.environ.get("DISPLAY") or "mujoco" not in sys.modules:
        return
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
