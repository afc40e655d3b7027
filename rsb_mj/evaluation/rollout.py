"""Run one episode of one policy in one environment and score it.

The loop: ``env.reset(options={"episode": ...})``, ``policy.reset``, then ``policy.act``
(one action or a chunk executed row by row) and ``env.step`` until success is latched
(:mod:`rsb_mj.scoring.scorer`), the step limit is reached, or the policy reports ``done``
(then the last action is held for :data:`SETTLE_STEPS` more steps while the scene settles).
An :class:`~rsb_mj.errors.RsbError` raised by the policy or the environment ends the
episode with termination ``"error"`` (scored as a failure); other exceptions are bugs and
propagate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from rsb_mj.episode import Episode
from rsb_mj.errors import EvalError, RsbError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.policies.base import ACTION_DIM, Policy
from rsb_mj.scoring.scorer import EpisodeScorer
from rsb_mj.version import versions

#: Control steps the last action is held after the policy reports ``done`` (1 s at 20 Hz),
#: so a block still settling into the zone is scored before the episode ends.
SETTLE_STEPS = 20


def _as_chunk(action: Any, policy: Policy) -> np.ndarray:
    chunk = np.asarray(action, dtype=np.float64)
    if chunk.ndim == 1:
        chunk = chunk[None]
    if chunk.ndim != 2 or chunk.shape[1] != ACTION_DIM or chunk.shape[0] == 0:
        raise EvalError(
            f"policy {policy.name}: act() returned shape {chunk.shape}; "
            f"expected ({ACTION_DIM},) or (H, {ACTION_DIM})"
        )
    return chunk


def run_episode(
    env: Any,
    policy: Policy,
    episode: Episode,
    problem: Any,
    *,
    max_steps: int,
    on_frame: Callable[[dict[str, Any]], None] | None = None,
) -> EpisodeRecord:
    """Roll out ``policy`` on ``episode`` and return its record.

    Args:
        env: an ``RsbEnv`` for the episode's task (any cameras the policy needs).
        policy: the policy; reset here.
        episode: the episode to run.
        problem: the parsed task file (its ``:grasp`` and ``:goal`` are scored).
        max_steps: control steps before the episode is cut (the suite's limit).
        on_frame: called with every observation (e.g. a video writer).
    """
    start = time.perf_counter()
    obs, info = env.reset(options={"episode": episode})
    sim = dict(info.get("sim", {}))
    if on_frame:
        on_frame(obs)
    scorer = EpisodeScorer.for_problem(problem, tuple(info["candidates"]), episode.target)
    termination, error, steps = "step_limit", None, 0
    try:
        policy.reset(env, obs, info)
        ended, settle = False, 0
        last = np.asarray(obs["state"], dtype=np.float64)  # held if done before acting
        while not ended:
            if policy.done:  # hold the last action while the scene settles
                if settle >= SETTLE_STEPS:
                    termination = "policy_done"
                    break
                chunk, settle = last[None], settle + 1
            else:
                chunk = _as_chunk(policy.act(obs), policy)
            for last in chunk:
                obs, _, terminated, truncated, info = env.step(last)
                steps += 1
                if on_frame:
                    on_frame(obs)
                if scorer.update(info["signals"]).success:
                    termination, ended = "success", True
                    break
                if steps >= max_steps or terminated or truncated:
                    ended = True
                    break
    except RsbError as exc:
        termination, error = "error", f"{type(exc).__name__}: {exc}"
    out = scorer.outcome
    letter_of = {cand: letter for letter, cand in episode.mapping.items()}
    return EpisodeRecord(
        suite=episode.suite,
        split=episode.split,
        index=episode.index,
        seed=episode.seed,
        policy=policy.name,
        task=episode.task,
        question_id=episode.question_id,
        template_id=episode.template_id,
        choices=episode.choices,
        correct=episode.correct,
        target=episode.target,
        choice=out.choice,
        chosen_option=letter_of.get(out.choice) if out.choice else None,
        in_zone=list(out.in_zone),
        grasp_step=out.grasp_step,
        success_step=out.success_step,
        grasped=out.grasped,
        success=out.success,
        goal_final=out.goal_final,
        termination=termination,
        steps=out.steps,
        max_steps=max_steps,
        wall_s=round(time.perf_counter() - start, 3),
        error=error,
        versions=versions(),
        sim=sim,
    )
