"""rsb_mj: RoboSemanticBench in MuJoCo.

The public API is flat: import what you need from ``rsb_mj``. The names of the later stages
(scene, environment, expert, scoring, evaluation) load on first use, so ``import rsb_mj``
stays cheap and does not import MuJoCo; it registers the gymnasium ids
``rsb_mj/RSB-<Suite>-v0`` and ``rsb_mj/RSB-Task-v0`` as soon as gymnasium is imported (before
or after rsb_mj), without importing gymnasium itself (see :mod:`rsb_mj.deferred`).

Data flows one way: task file -> :func:`load_task` (AST + lint) -> :func:`sample_episode`
-> :func:`compile_scene` -> :class:`RsbEnv` -> a :class:`Policy` (e.g.
:class:`PickPlaceExpert`) -> :class:`EpisodeScorer` -> :func:`run_eval` / reports.
"""

from __future__ import annotations

import sys

from rsb_mj.deferred import register_when_gymnasium_loads
from rsb_mj.errors import (
    EnvError,
    EpisodeError,
    EvalError,
    ExpertError,
    RsbError,
    SceneError,
    TaskError,
)
from rsb_mj.lazy import lazy_exports


def _register() -> None:
    """Register the ids (gymnasium has just been imported). When it was
    ``rsb_mj.env.registration`` that imported gymnasium, that module registers the ids
    itself once it is complete."""
    module = sys.modules.get("rsb_mj.env.registration")
    if module is not None and not hasattr(module, "register_envs"):
        return
    # deferred: gymnasium, imported only once gymnasium itself is
    from rsb_mj.env.registration import register_envs

    register_envs()


register_when_gymnasium_loads(_register)

#: Public name -> module that defines it (imported on first access).
_LAZY: dict[str, str] = {
    # episodes and suites
    "LETTERS": "rsb_mj.episodes.episode",
    "Episode": "rsb_mj.episodes.episode",
    "Pose2D": "rsb_mj.lang.layout",
    "SUITES": "rsb_mj.suites",
    "Suite": "rsb_mj.suites",
    "get_suite": "rsb_mj.suites",
    # task language
    "Problem": "rsb_mj.lang",
    "Diagnostic": "rsb_mj.lang",
    "TaskFileError": "rsb_mj.lang",
    "parse_file": "rsb_mj.lang",
    "parse_text": "rsb_mj.lang",
    "load_task": "rsb_mj.lang",
    "lint_file": "rsb_mj.lang",
    "lint_text": "rsb_mj.lang",
    "lint_template": "rsb_mj.lang",
    "format_text": "rsb_mj.lang",
    # episodes
    "sample_episode": "rsb_mj.episodes",
    "load_table": "rsb_mj.tables",
    "check_tables": "rsb_mj.tables",
    # scene and environment
    "Scene": "rsb_mj.scene",
    "compile_scene": "rsb_mj.scene",
    "sample_layout": "rsb_mj.scene",
    "RsbEnv": "rsb_mj.env",
    "register_envs": "rsb_mj.env",
    # expert
    "ArmIK": "rsb_mj.expert",
    "PickPlaceExpert": "rsb_mj.expert",
    # scoring and evaluation
    "EpisodeScorer": "rsb_mj.scoring",
    "Outcome": "rsb_mj.scoring",
    "EvalConfig": "rsb_mj.evaluation",
    "EpisodeRecord": "rsb_mj.evaluation",
    "run_eval": "rsb_mj.evaluation",
    "evaluate": "rsb_mj.evaluation.evaluate",
    "Results": "rsb_mj.evaluation.evaluate",
    "read_records": "rsb_mj.evaluation",
    "summarize": "rsb_mj.evaluation",
    "Policy": "rsb_mj.policies",
    "make_policy": "rsb_mj.policies",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "EnvError",
    "EpisodeError",
    "EvalError",
    "ExpertError",
    "RsbError",
    "SceneError",
    "TaskError",
    *_LAZY,
]
