"""rsb_mj: RoboSemanticBench in MuJoCo.

The public API is flat: import what you need from ``rsb_mj``. Names are added here as the
stages land (task language, episodes, scene, environment, expert, scoring, evaluation).
"""

from rsb_mj.errors import (
    EnvError,
    EpisodeError,
    EvalError,
    ExpertError,
    RsbError,
    SceneError,
    TaskError,
)

__all__ = [
    "EnvError",
    "EpisodeError",
    "EvalError",
    "ExpertError",
    "RsbError",
    "SceneError",
    "TaskError",
]
