"""The rsb gymnasium environment (bimanual Aloha in MuJoCo).

``RsbEnv`` is imported lazily so that ``rsb_mj.env.registration`` (and so ``import rsb_mj``)
does not import MuJoCo. See :mod:`rsb_mj.env.rsb_env`.
"""

from __future__ import annotations

from rsb_mj.lazy import lazy_exports
from rsb_mj.scene.gl import choose_gl_backend

choose_gl_backend()

__all__ = ["RsbEnv", "register_envs"]


__getattr__, __dir__ = lazy_exports(
    __name__,
    {"RsbEnv": "rsb_mj.env.rsb_env", "register_envs": "rsb_mj.env.registration"},
    globals(),
)
