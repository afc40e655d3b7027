"""Scene: robot model, object categories and the scene compiler (Problem -> MuJoCo model).

Frames: the world frame's x/y coincide with the table frame (origin at the table-top center,
x to the robot's right, y away from the robot, z up, metres); the table top is at world
z = :data:`rsb_mj.workspace.TABLE_TOP_Z`. ``table_to_world(x, y, z)`` converts.

Modules: :mod:`~rsb_mj.scene.aloha` (robot + table spec, early deliverable for the expert),
:mod:`~rsb_mj.scene.categories` (object registry), :mod:`~rsb_mj.scene.compiler` (task +
episode -> compiled scene); ``sample_layout`` is offered here too, but the layout sampler
lives with the task language (:mod:`rsb_mj.lang.layout`: the episode sampler draws with it
and the linter runs its trials).
Importing this package does not import MuJoCo; it picks the offscreen GL backend
(``MUJOCO_GL=egl`` when unset, OSMesa as fallback; see :mod:`rsb_mj.scene.gl`) so that any
later ``import mujoco`` renders headless.
"""

from __future__ import annotations

from rsb_mj.lazy import lazy_exports
from rsb_mj.scene.gl import choose_gl_backend

choose_gl_backend()

#: Public name -> defining module (imported on first access, so this package stays light).
_EXPORTS = {
    "ARM_BASE_XY": "rsb_mj.workspace",
    "TABLE_TOP_Z": "rsb_mj.workspace",
    "table_to_world": "rsb_mj.scene.frames",
    "world_to_table": "rsb_mj.scene.frames",
    "sample_layout": "rsb_mj.lang.layout",
    "aloha_spec": "rsb_mj.scene.aloha",
    "compile_scene": "rsb_mj.scene.compiler",
    "Scene": "rsb_mj.scene.compiler",
    "get_category": "rsb_mj.scene.categories",
    "CATEGORIES": "rsb_mj.scene.categories",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
