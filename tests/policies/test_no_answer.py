"""Nothing a policy is handed holds the answer: a snooping policy searches it all.

The snooper is an ``inprocess:module:factory`` user policy (so the test can read what it
saw; in a policy process it is handed copies of the same values). At reset it walks
everything reachable from what it is handed (the env view, the observation, the info:
attributes, dataclass fields, mappings, sequences, bound methods' owners) and, at every
step, the observation again. The
test then checks that no episode, no seed, no question id and no table index was reachable,
and that a snooper which grasps whatever candidate its search points to can do no better
than the candidate order it is handed.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import deque
from typing import Any

import numpy as np
import pytest

from rsb_mj.episodes.episode import Episode
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode

SEEN: list[Any] = []


def reachable(*roots: Any, limit: int = 20000) -> list[Any]:
    """Every object reachable from ``roots`` through attributes, fields and containers."""
    out, ids, queue = [], set(), deque(roots)
    while queue and len(out) < limit:
        obj = queue.popleft()
        if id(obj) in ids or isinstance(obj, type):
            continue
        ids.add(id(obj))
        out.append(obj)
        if isinstance(obj, str | bytes | int | float | bool | np.ndarray) or obj is None:
            continue
        if isinstance(obj, dict):
            queue.extend(obj.keys())
            queue.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset | deque):
            queue.extend(obj)
        if dataclasses.is_dataclass(obj):
            queue.extend(getattr(obj, f.name, None) for f in dataclasses.fields(obj))
        queue.extend(getattr(obj, "__dict__", {}).values())
        for name in getattr(type(obj), "__slots__", ()):
            queue.append(getattr(obj, name, None))
        for name in ("unwrapped", "env", "spec", "np_random"):
            with contextlib.suppress(Exception):  # a property that refuses is fine
                queue.append(getattr(obj, name))
    return out


class Snooper:
    """Searches everything it is handed; commands the state it sees (never moves)."""

    cameras = ("head",)

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        SEEN.extend(reachable(env, obs, info))

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        SEEN.extend(reachable(obs))
        return np.asarray(obs["state"])


def snooper() -> Snooper:
    """``module:factory`` entry."""
    return Snooper()


@pytest.mark.parametrize("suite", ["RSB-Math-4", "RSB-General-10"])
def test_a_snooping_policy_finds_no_episode_seed_question_or_index(suite):
    from rsb_mj.env import RsbEnv

    SEEN.clear()
    s = get_suite(suite)
    env = RsbEnv(s.path, suite=suite, cameras=("head",))
    policy = make_policy("inprocess:policies.test_no_answer:snooper")
    episode = load_episode(suite, "eval", 17)
    order = env.scene.candidates  # the task file's :candidates order
    try:
        record = Rollout(env, policy, episode, env.problem, max_steps=3).run()
    finally:
        env.close()
    assert record.termination == "step_limit" and record.steps == 3
    assert len(SEEN) > 50  # it did search (spaces, arrays, signals, the view)
    assert not any(isinstance(o, Episode) for o in SEEN)
    assert not any(type(o).__name__ in ("RsbEnv", "MjData", "MjModel", "Scene") for o in SEEN)
    ints = {o for o in SEEN if isinstance(o, int) and not isinstance(o, bool)}
    strings = {o for o in SEEN if isinstance(o, str)}
    assert episode.seed not in ints
    assert episode.question_id not in strings and episode.template_id not in strings
    assert not {"correct", "mapping", "answer", "target", "seed", "episode", "index"} & strings
    # candidate names come only in the task file's order, which no episode changes
    orders = {o for o in SEEN if isinstance(o, tuple) and episode.target in o}
    assert orders == {order}
