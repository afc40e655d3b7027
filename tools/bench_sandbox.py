"""The sandbox's overhead (:mod:`rsb_mj.policies.sandbox`): a policy process in bubblewrap
against the same process without it.

Three figures, each sandboxed and not, the fastest of ``--blocks`` blocks kept (the machine
is shared; the least disturbed block is the estimate):

* **start**: starting a policy process, building the policy (``hold`` of
  ``tools/bench_child_policy.py``: no cost of its own), one ``reset`` and ``close``, median
  of ``--starts``; paid once per worker and policy, and again after a policy error;
* **act**: one ``act`` round trip with three ``--size`` x ``--size`` RGB images, median of
  ``--steps`` calls;
* **episode**: ``rsb eval`` of ``--episodes`` RSB-Math-4 episodes of ``--max-steps`` steps
  with that policy, one worker, against the same run with ``--no-sandbox``: the wall time
  per episode (the run's start included), the overhead per episode (difference) and the
  ratio.

Usage: ``python tools/bench_sandbox.py [--starts 10] [--steps 300] [--size 224]
[--episodes 10] [--max-steps 400] [--blocks 2] [--json out.json]``. Exits 2 with a message
where the sandbox is unavailable.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HOLD = f"{ROOT / 'tools' / 'bench_child_policy.py'}:hold"


def _starts(n: int, view: Any, obs: dict[str, Any], info: dict[str, Any]) -> float:
    """Median seconds of ``n`` start + reset + close of a policy process."""
    from rsb_mj.policies.child import ChildPolicy

    times = []
    for _ in range(n):
        start = time.perf_counter()
        policy = ChildPolicy(HOLD)
        policy.reset(view, obs, info)
        policy.close()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _acts(n: int, view: Any, obs: dict[str, Any], info: dict[str, Any]) -> float:
    """Median seconds of one ``act`` round trip over ``n`` calls (after 20 warm-up)."""
    from rsb_mj.policies.child import ChildPolicy

    policy = ChildPolicy(HOLD)
    try:
        policy.reset(view, obs, info)
        for _ in range(20):
            policy.act(obs)
        times = []
        for _ in range(n):
            start = time.perf_counter()
            policy.act(obs)
            times.append(time.perf_counter() - start)
    finally:
        policy.close()
    return statistics.median(times)


def _episode_s(episodes: int, max_steps: int, sandboxed: bool) -> float:
    """Wall seconds per episode of ``rsb eval`` (:func:`~rsb_mj.evaluation.runner.run_eval`,
    one worker) with the hold policy, the run's start (environment, policy process)
    included."""
    from rsb_mj.evaluation.runner import EvalConfig, run_eval

    with tempfile.TemporaryDirectory() as tmp:
        config = EvalConfig(
            ("RSB-Math-4",), (HOLD,), episodes, Path(tmp) / "run", workers=1,
            max_steps=max_steps, progress=False, sandbox=sandboxed,
        )  # fmt: skip
        start = time.perf_counter()
        records = run_eval(config)
        elapsed = time.perf_counter() - start
    errors = [r.error for r in records if r.is_error]
    if errors:
        raise SystemExit(f"bench_sandbox: an episode failed: {errors[0]}")
    return elapsed / episodes


def measure(
    starts: int, steps: int, size: int, episodes: int, max_steps: int, blocks: int
) -> dict[str, Any]:
    """The figures of one run (see the module docstring), times in ms."""
    from gymnasium import spaces

    from rsb_mj.env.views import PolicyEnv
    from rsb_mj.policies import sandbox

    rng = np.random.default_rng(0)
    images = {
        n: rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
        for n in ("head", "left_wrist", "right_wrist")
    }
    obs = {"state": rng.uniform(-1, 1, 14), "images": images}
    box = spaces.Box(-np.pi, np.pi, shape=(14,), dtype=np.float64)
    view = PolicyEnv(box, None, ("a", "b"), 20.0, "bench")
    info = {"instruction": "bench", "candidates": ("a", "b"), "step": 0, "signals": {}}
    held = os.environ.get(sandbox.ENV_VAR)
    figures: dict[str, list[float]] = {}
    try:
        for _ in range(blocks):
            for on in (True, False):
                sandbox.install(sandbox.Sandbox(enabled=on))
                side = "sandbox" if on else "plain"
                figures.setdefault(f"start_{side}", []).append(_starts(starts, view, obs, info))
                figures.setdefault(f"act_{side}", []).append(_acts(steps, view, obs, info))
                figures.setdefault(f"episode_{side}", []).append(
                    _episode_s(episodes, max_steps, on)
                )
    finally:
        if held is None:
            os.environ.pop(sandbox.ENV_VAR, None)
        else:
            os.environ[sandbox.ENV_VAR] = held
    best = {k: 1e3 * min(v) for k, v in figures.items()}
    return {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "starts": starts,
        "steps": steps,
        "size": size,
        "episodes": episodes,
        "max_steps": max_steps,
        "blocks": blocks,
        **{f"{k}_ms": v for k, v in best.items()},
        "episode_overhead_ms": best["episode_sandbox"] - best["episode_plain"],
        "episode_ratio": best["episode_sandbox"] / best["episode_plain"],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; 0, or 2 for bad arguments or no sandbox."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10, help="process starts per block")
    parser.add_argument("--steps", type=int, default=300, help="act calls per block")
    parser.add_argument("--size", type=int, default=224, help="image side [px] (default 224)")
    parser.add_argument("--episodes", type=int, default=10, help="rsb eval episodes per block")
    parser.add_argument("--max-steps", type=int, default=400, help="steps per episode")
    parser.add_argument("--blocks", type=int, default=2, help="blocks; the fastest is kept")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    counts = (args.starts, args.steps, args.size, args.episodes, args.max_steps, args.blocks)
    if min(counts) < 1:
        parser.error("--starts, --steps, --size, --episodes, --max-steps and --blocks must be "
                     "at least 1")  # fmt: skip
    from rsb_mj.policies.sandbox import available

    why = available()
    if why is not None:
        print(f"bench_sandbox: the sandbox is unavailable: {why}", file=sys.stderr)
        return 2
    r = measure(*counts)
    print(f"start + reset + close: {r['start_sandbox_ms']:.1f} ms sandboxed, "
          f"{r['start_plain_ms']:.1f} ms plain")  # fmt: skip
    print(f"act (3 x {args.size}x{args.size} RGB): {r['act_sandbox_ms']:.3f} ms sandboxed, "
          f"{r['act_plain_ms']:.3f} ms plain")  # fmt: skip
    print(f"rsb eval, {args.episodes} episodes of {args.max_steps} steps: "
          f"{r['episode_sandbox_ms']:.0f} ms/episode sandboxed, {r['episode_plain_ms']:.0f} "
          f"plain: overhead {r['episode_overhead_ms']:+.0f} ms/episode "
          f"(ratio {r['episode_ratio']:.3f})")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(r, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
