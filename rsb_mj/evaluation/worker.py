"""Run jobs inside a worker process, keeping environments and policies between episodes.

Each process (the parent with ``--workers 1``, else each pool worker) caches one
environment per (suite, split, cameras), one policy per spec and one parsed task per suite,
so building them is paid once per process, not per episode.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rsb_mj.evaluation.episode_source import load_episode
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import run_episode
from rsb_mj.evaluation.video import VIDEO_CAMERA, VideoWriter
from rsb_mj.policies.base import Policy
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import get_suite

#: ``factory(suite_name, split, cameras) -> env``; the default builds ``rsb_mj.env.RsbEnv``.
EnvFactory = Callable[[str, str, tuple[str, ...]], Any]

_ENVS: dict[tuple[str, str, tuple[str, ...]], Any] = {}
_POLICIES: dict[str, Policy] = {}
_PROBLEMS: dict[str, Any] = {}


def default_env_factory(suite: str, split: str, cameras: tuple[str, ...]) -> Any:
    """``RsbEnv`` for the suite's task file, rendering only ``cameras``."""
    from rsb_mj.env import RsbEnv

    s = get_suite(suite)
    return RsbEnv(s.path, suite=s.name, split=split, cameras=cameras)


def _problem(suite: str) -> Any:
    if suite not in _PROBLEMS:
        from rsb_mj.lang import load_task

        _PROBLEMS[suite] = load_task(get_suite(suite).path)
    return _PROBLEMS[suite]


def run_job(job: Job, env_factory: EnvFactory | None = None) -> EpisodeRecord:
    """Run one job in this process and return its record (written by the caller)."""
    policy = _POLICIES.get(job.policy)
    if policy is None:
        policy = _POLICIES[job.policy] = make_policy(job.policy)
        policy.name = job.policy  # records are keyed by the spec as the user wrote it
    cameras = tuple(policy.cameras)
    if job.video and VIDEO_CAMERA not in cameras:
        cameras = (*cameras, VIDEO_CAMERA)
    key = (job.suite, job.split, cameras)
    if key not in _ENVS:
        _ENVS[key] = (env_factory or default_env_factory)(job.suite, job.split, cameras)
    episode = load_episode(job.suite, job.split, job.index)
    writer = VideoWriter(Path(job.video)) if job.video else None
    env = _ENVS[key]
    problem = getattr(env.unwrapped, "problem", None) or _problem(job.suite)
    record = run_episode(env, policy, episode, problem, max_steps=job.max_steps, on_frame=writer)
    if writer:
        writer.close()
    return record


def close_all() -> None:
    """Close cached policies and environments (end of a run in this process)."""
    for policy in _POLICIES.values():
        policy.close()
    for env in _ENVS.values():
        env.close()
    _POLICIES.clear()
    _ENVS.clear()
