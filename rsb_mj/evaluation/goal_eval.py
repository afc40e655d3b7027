"""``rsb eval`` on goal tasks: LIBERO / VLA-Arena style files run on the Aloha.

Each (task file, policy, episode) is one episode of :class:`rsb_mj.env.goal_env.GoalEnv`: a
goal suite's file runs the rows of its frozen table (:mod:`rsb_mj.tables.goal`: a seed and
the layout frozen from it), any other file bare seeds (each drawing the layout); the policy
acts until the goal holds for :data:`~rsb_mj.scoring.goal_predicates.HOLD_STEPS` control
steps (success) or the step limit. The summary gives the success rate with its Wilson 95%
interval per task and policy (and the mean ``:cost`` per episode where the file has one),
labelled :data:`~rsb_mj.env.goal_env.LABEL`. With ``--out`` each episode is a JSON line of
``OUT/goal_episodes.jsonl`` (written atomically at the end).

A file that cannot be built fails before any episode with the itemised list of what rsb_mj
lacks and the file's tier (:func:`rsb_mj.lang.goal_task.check_buildable`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.atomic import atomic_write_text
from rsb_mj.episodes.goal_episode import GoalEpisode
from rsb_mj.errors import EvalError, RsbError
from rsb_mj.evaluation.metrics import wilson
from rsb_mj.scene.assets import ObjectSource
from rsb_mj.scoring.goal_predicates import HOLD_STEPS


@dataclass(frozen=True)
class GoalRecord:
    """One goal-task episode.

    Attributes:
        task: the task file.
        tier: its tier (A0, A1).
        source: whose predicate semantics applied (``libero``, ``vla_arena``).
        policy: the policy spec.
        seed: the episode seed.
        success: the goal held for the required steps.
        steps: control steps run.
        cost: the episode's summed ``:cost`` (0 without one).
        failure: why the episode ended without success (the expert's reason, ``step limit``,
            ``reset: ...``), or ``""``.
        failure_class: :func:`failure_class` of ``failure`` (``""`` on success).
        objects: where the objects came from: ``"standins"`` (the shipped stand-ins) or
            ``"assets:<fingerprint>"`` (the user's originals, :mod:`rsb_mj.scene.assets`).
        objects_fingerprint: sha256 over the original files the scene used ("" for the
            stand-ins).
        label: :data:`~rsb_mj.env.goal_env.LABEL`.
        wall_s: wall-clock seconds (not part of the result).
        suite: the goal suite whose frozen table the row came from (``""``: a bare seed).
        split: the table's split (``"eval"`` for a bare seed).
        index: the row's index among the task file's rows (a bare seed's: the seed).
    """

    task: str
    tier: str
    source: str
    policy: str
    seed: int
    success: bool
    steps: int
    cost: float
    failure: str
    failure_class: str
    objects: str
    objects_fingerprint: str
    label: str
    wall_s: float
    suite: str = ""
    split: str = "eval"
    index: int = 0


#: Failure classes (:func:`failure_class`).
FAILURE_CLASSES = ("reset", "reach", "grasp", "placement", "policy")
#: Expert phases and the class of a failure in them.
_PHASES = {
    "approach": "grasp",
    "descend": "grasp",
    "close": "grasp",
    "lift": "reach",
    "carry": "reach",
    "lower": "placement",
    "release": "placement",
    "retreat": "placement",
    "home": "placement",
}


def failure_class(failure: str) -> str:
    """The class of an episode's ``failure``: ``reset`` (no valid layout), ``reach`` (an
    arm pose the IK cannot reach, or a carry that finds no pose above the place),
    ``grasp`` (no grasp, or the object not held), ``placement`` (released but the goal does
    not hold), ``policy`` (a policy other than the expert gave up or ran out of steps), or
    ``""`` for none."""
    if not failure:
        return ""
    if failure.startswith("reset:"):
        return "reset"
    if "not held" in failure and not failure.startswith("expert done"):
        return "grasp"
    phase = failure.split(":", 1)[0]
    if phase in _PHASES:
        if "unreachable" in failure or "no reachable" in failure:
            return "reach"
        return _PHASES[phase]
    if failure.startswith("expert done"):
        return "placement"
    return "policy"


def _policy(spec: str, env: Any) -> Any:
    if spec == "expert":
        from rsb_mj.expert.goal_expert import GoalExpert

        return GoalExpert(env)
    from rsb_mj.policies.spec import make_policy

    return make_policy(spec)


def run_episode(env: Any, spec: str, seed: int | GoalEpisode, policy: Any = None) -> GoalRecord:
    """Run one episode of ``env`` (a :class:`GoalEnv`) with policy ``spec``: a bare
    ``seed``, or a frozen table row (a :class:`GoalEpisode`)."""
    from rsb_mj.env.goal_env import LABEL

    t0 = time.perf_counter()
    task = env.task
    episode = seed if isinstance(seed, GoalEpisode) else GoalEpisode.seeded(task.path, seed)
    base = {
        "task": task.path,
        "tier": task.tier,
        "source": task.source,
        "policy": spec,
        "seed": episode.seed,
        "objects": env.objects.label,
        "objects_fingerprint": env.objects.fingerprint,
        "label": LABEL,
        "suite": episode.suite,
        "split": episode.split,
        "index": episode.index,
    }
    try:
        obs, info = env.reset(seed=episode.seed, options={"episode": episode})
    except RsbError as exc:
        return GoalRecord(
            **base,
            success=False,
            steps=0,
            cost=0.0,
            failure=f"reset: {exc}",
            failure_class="reset",
            wall_s=0.0,
        )
    if spec == "expert":
        policy = _policy(spec, env)
    else:
        policy.reset(env, obs, info)
    terminated = truncated = False
    cost = 0.0
    after_done = 0
    while not (terminated or truncated):
        if policy.done:
            # the expert's last action is held until the goal has held long enough
            after_done += 1
            if spec != "expert" or after_done > HOLD_STEPS + 2:
                break
        action = np.asarray(policy.act(obs), dtype=np.float64)
        for a in action.reshape(-1, 14):
            obs, _, terminated, truncated, info = env.step(a)
            cost += float(info.get("cost", 0.0))
            if terminated or truncated:
                break
    cost += env.end_cost()
    failure = ""
    if not terminated:
        failure = getattr(policy, "failure", None) or ("step limit" if truncated else "policy done")
        if spec == "expert" and failure in ("step limit", "policy done"):
            failure = f"expert done, goal not held ({_goal_state(env)})"
    return GoalRecord(
        **base,
        success=bool(terminated),
        steps=int(info["step"]),
        cost=cost,
        failure=str(failure),
        failure_class=failure_class(str(failure)),
        wall_s=round(time.perf_counter() - t0, 3),
    )


def _goal_state(env: Any) -> str:
    """Each goal relation and its truth now (``On apple_1 plate_1: False``)."""
    terms = env.checker.terms(env.data)
    return "; ".join(
        f"{r.predicate} {r.mover} {r.place}: {ok}"
        for r, ok in zip(env.task.goal, terms, strict=True)
    )


def run_goal_eval(
    tasks: list[str],
    policies: list[str],
    *,
    episodes: int,
    start: int = 0,
    out: Path | None = None,
    max_steps: int | None = None,
    objects: ObjectSource | None = None,
    rows: dict[str, Sequence[GoalEpisode]] | None = None,
) -> list[GoalRecord]:
    """Run ``episodes`` episodes of every task with every policy, on the objects of
    ``objects`` (the shipped stand-ins by default): of a task in ``rows`` (a goal suite's
    file: its frozen table rows, :func:`rsb_mj.tables.goal.file_rows`) its rows ``start`` ..
    ``start + episodes - 1`` (those it has), of any other the seeds ``start``,
    ``start + 1`` ...

    Raises:
        TaskError: for a task file that cannot be built (the itemised list and its tier).
        EvalError: for fewer than one episode.
    """
    from rsb_mj.env.goal_env import MAX_STEPS, GoalEnv

    if episodes < 1:
        raise EvalError(f"--episodes must be at least 1, got {episodes}")
    records: list[GoalRecord] = []
    for path in tasks:
        for spec in policies:
            cameras = () if spec == "expert" else ("head",)
            env = GoalEnv(path, cameras=cameras, max_steps=max_steps or MAX_STEPS, objects=objects)
            if spec == policies[0]:
                for warning in env.warnings:
                    print(f"warning: {warning}", file=sys.stderr)
            policy = None if spec == "expert" else _policy(spec, env)
            if rows is not None and path in rows:
                todo = list(rows[path][start : start + episodes])
            else:
                todo = [GoalEpisode.seeded(path, s) for s in range(start, start + episodes)]
            try:
                for episode in todo:
                    records.append(run_episode(env, spec, episode, policy))
            finally:
                env.close()
                if policy is not None and hasattr(policy, "close"):
                    policy.close()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(asdict(r), sort_keys=True) + "\n" for r in records)
        atomic_write_text(out / "goal_episodes.jsonl", lines)
    return records


def summary(records: list[GoalRecord]) -> str:
    """A markdown table: task, tier, policy, successes / episodes, rate [Wilson 95%], mean
    cost per episode (where the task has a ``:cost``).

    Raises:
        EvalError: for records of different object sources (stand-ins, asset folders).
    """
    from rsb_mj.env.goal_env import LABEL

    sources = sorted({r.objects for r in records})
    if len(sources) > 1:
        raise EvalError(
            "these records ran on different objects and are not pooled: "
            + ", ".join(sources)
            + " (standins: the shipped stand-ins; assets:<fingerprint>: a LIBERO / VLA-Arena "
            "asset folder); report each source on its own"
        )
    rows = ["| task | tier | policy | success | rate % [95% CI] | cost/episode |", "|---" * 6 + "|"]
    groups: dict[tuple[str, str], list[GoalRecord]] = {}
    for r in records:
        groups.setdefault((r.task, r.policy), []).append(r)
    for (task, policy), rs in groups.items():
        k, n = sum(r.success for r in rs), len(rs)
        lo, hi = wilson(k, n)
        cost = f"{np.mean([r.cost for r in rs]):.2f}" if any(r.cost for r in rs) else "-"
        rows.append(
            f"| {Path(task).name} | {rs[0].tier} | {policy} | {k}/{n} | "
            f"{100 * k / n:.0f} [{100 * lo:.0f}, {100 * hi:.0f}] | {cost} |"
        )
    return "\n".join(rows) + f"\n{LABEL}: not comparable with published LIBERO/VLA-Arena numbers"
