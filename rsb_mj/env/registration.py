"""Gymnasium registration of the rsb environments (imports neither MuJoCo nor the env).

Ids: ``rsb_mj/RSB-Math-4-v0`` ... ``rsb_mj/RSB-General-10-v0`` (one per suite, task file
and suite name preset) and ``rsb_mj/RSB-Task-v0`` (pass ``task=PATH``). Truncation after the
suite's ``max_steps`` control steps.
"""

from __future__ import annotations

import gymnasium

from rsb_mj.suites import SUITES

ENTRY_POINT = "rsb_mj.env.rsb_env:RsbEnv"
TASK_ENV_ID = "rsb_mj/RSB-Task-v0"
#: Truncation of ``RSB-Task-v0`` [control steps].
TASK_MAX_STEPS = 400


def register_envs() -> None:
    """Register every rsb id with gymnasium (idempotent)."""
    registry = gymnasium.envs.registration.registry
    for suite in SUITES.values():
        if suite.env_id not in registry:
            gymnasium.register(
                id=suite.env_id,
                entry_point=ENTRY_POINT,
                max_episode_steps=suite.max_steps,
                kwargs={"task": str(suite.path), "suite": suite.name},
            )
    if TASK_ENV_ID not in registry:
        gymnasium.register(
            id=TASK_ENV_ID, entry_point=ENTRY_POINT, max_episode_steps=TASK_MAX_STEPS
        )
