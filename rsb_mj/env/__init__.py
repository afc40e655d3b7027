"""The rsb gymnasium environment (bimanual Aloha in MuJoCo).

``RsbEnv`` is imported lazily so that ``rsb_mj.env.registration`` (and so ``import rsb_mj``)
does not import MuJoCo. See :mod:`rsb_mj.env.rsb_env`.
"""

from __future__ import annotations

from typing import Any

from rsb_mj.scene.gl import choose_gl_backend

choose_gl_backend()

__all__ = ["RsbEnv", "register_envs"]


def __getattr__(name: str) -> Any:
    if name == "RsbEnv":
        from rsb_mj.env.rsb_env import RsbEnv

        return RsbEnv
    if name == "register_envs":
        from rsb_mj.env.registration import register_envs

        return register_envs
    raise AttributeError(f"module 'rsb_mj.env' has no attribute {name!r}")
