"""Run the expert for one episode of an environment, scoring it as the benchmark does.

:func:`run_expert` resets the environment on an episode, lets :class:`PickPlaceExpert`
act until it is done (or the episode is truncated), scores every step with
:class:`rsb_mj.scoring.EpisodeScorer`, and optionally records the frames a demonstration
needs (observation before each action, and the action).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rsb_mj.episode import Episode
from rsb_mj.expert.pick_place import PickPlaceExpert


@dataclass
class ExpertRun:
    """The result of one expert episode.

    Attributes:
        episode: the episode that was run.
        success: the task's goal held after a grasp of the target (TSR flag).
        grasped: some candidate was grasped (GSR flag).
        choice: the first candidate grasped, or None.
        steps: control steps executed.
        max_steps: the step limit of the environment (0 when unknown).
        failure: why it failed (``""`` on success): the expert's own reason, or what the
            scorer saw.
        phase: the expert phase at the end.
        warnings: problems the expert worked around (e.g. no collision-free grasp).
        wall_s: wall-clock seconds of the rollout (reset included).
        instruction: the instruction given with the episode.
        states: (T, 14) measured states before each action (when recording).
        actions: (T, 14) actions (when recording).
        images: camera name -> list of T uint8 (H, W, 3) frames (when recording).
    """

    episode: Episode
    success: bool
    grasped: bool
    choice: str | None
    steps: int
    max_steps: int
    failure: str
    phase: str
    wall_s: float
    warnings: list[str] = field(default_factory=list)
    instruction: str = ""
    states: np.ndarray | None = None
    actions: np.ndarray | None = None
    images: dict[str, list[np.ndarray]] = field(default_factory=dict)

    @property
    def sim_s(self) -> float:
        """Simulated seconds (control steps at 20 Hz)."""
        return self.steps * 0.05

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record of the run (no frames)."""
        ep = self.episode
        return {
            "suite": ep.suite,
            "split": ep.split,
            "index": ep.index,
            "seed": ep.seed,
            "target": ep.target,
            "success": self.success,
            "grasped": self.grasped,
            "choice": self.choice,
            "steps": self.steps,
            "failure": self.failure,
            "phase": self.phase,
            "warnings": self.warnings,
            "wall_s": round(self.wall_s, 3),
        }


def _max_steps(env: Any) -> int:
    spec = getattr(env, "spec", None)
    return int(getattr(spec, "max_episode_steps", 0) or 0)


def run_expert(
    env: Any,
    episode: Episode,
    problem: Any,
    *,
    record: bool = False,
    extra_steps: int = 2,
) -> ExpertRun:
    """Reset ``env`` on ``episode`` and run the expert on ``episode.target``.

    Args:
        env: an rsb_mj environment (``gymnasium.make`` result or a bare ``RsbEnv``).
        episode: the episode to run.
        problem: the parsed task (``rsb_mj.lang`` ``Problem``) whose ``:grasp`` and ``:goal``
            score the run.
        record: keep states, actions and camera frames.
        extra_steps: steps to keep still after the expert is done, so scoring sees the
            released object at rest.

    Returns:
        The :class:`ExpertRun`.
    """
    from rsb_mj.scoring import EpisodeScorer

    start = time.perf_counter()
    obs, info = env.reset(options={"episode": episode})
    scorer = EpisodeScorer.for_problem(problem, tuple(info["candidates"]), episode.target)
    scorer.update(info["signals"])
    expert = PickPlaceExpert(env, episode.target)
    limit = _max_steps(env)
    states: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    images: dict[str, list[np.ndarray]] = {}
    steps = 0
    after = 0
    truncated = False
    while not truncated and after < extra_steps:
        action = expert.act(obs)
        if expert.done:
            after += 1
        if record:
            states.append(np.asarray(obs["state"], dtype=np.float64).copy())
            actions.append(action.copy())
            for name, frame in obs.get("images", {}).items():
                images.setdefault(name, []).append(frame)
        obs, _, terminated, truncated, info = env.step(action)
        steps += 1
        scorer.update(info["signals"])
        truncated = truncated or terminated or (limit > 0 and steps >= limit)
    out = scorer.outcome
    failure = ""
    if expert.failure:
        failure = f"expert: {expert.failure}"
    elif not out.success:
        if truncated and not expert.done:
            failure = f"step limit {limit} reached in phase {expert.phase}"
        elif not out.grasped:
            failure = "no grasp detected"
        elif out.choice != episode.target:
            failure = f"grasped {out.choice} instead of {episode.target}"
        else:
            failure = f"target not released in the zone (in zone: {out.in_zone or 'none'})"
        if expert.warnings:
            failure += "; " + "; ".join(expert.warnings)
    return ExpertRun(
        episode=episode,
        success=bool(out.success),
        grasped=bool(out.grasped),
        choice=out.choice,
        steps=steps,
        max_steps=limit,
        failure=failure,
        phase=expert.phase,
        warnings=list(expert.warnings),
        wall_s=time.perf_counter() - start,
        instruction=str(info.get("instruction", episode.instruction)),
        states=np.stack(states) if record and states else None,
        actions=np.stack(actions) if record and actions else None,
        images=images,
    )
