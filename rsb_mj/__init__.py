"""rsb_mj: RoboSemanticBench in MuJoCo.

The public API is flat: import what you need from ``rsb_mj``. Names are added here as the
stages land (task language, episodes, scene, environment, expert, scoring, evaluation).
"""

# Registers the gymnasium ids rsb_mj/RSB-*-v0 (imports gymnasium, not MuJoCo).
from rsb_mj.env.registration import register_envs
from rsb_mj.errors import (
    EnvError,
    EpisodeError,
    EvalError,
    ExpertError,
    RsbError,
    SceneError,
    TaskError,
)

register_envs()

__all__ = [
    "EnvError",
    "EpisodeError",
    "EvalError",
    "ExpertError",
    "RsbError",
    "SceneError",
    "TaskError",
]
