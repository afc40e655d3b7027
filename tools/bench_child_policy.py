"""Overhead per step of a user policy in a policy process, against the same policy in process.

The policy (``hold`` below, loaded as ``tools/bench_child_policy.py:hold``) returns the
state it is given, so its own cost is nil and the figure is rsb's: framing the observation
(the state and ``--cameras`` RGB images of ``--size`` x ``--size`` px), the socket round
trip, and decoding the action. Measured per ``act`` call: a policy process
(:class:`~rsb_mj.policies.child.ChildPolicy`) against the same class adapted in process
(:class:`~rsb_mj.policies.user.UserPolicy`), median, 90th percentile and mean over
``--steps`` calls after 20 warm-up calls, and the fastest of ``--blocks`` blocks' medians
(the machine is shared; the least disturbed block is the estimate). Target: under 1 ms
at three 224x224 images.

Usage: ``python tools/bench_child_policy.py [--steps 500] [--size 224] [--cameras 3]
[--blocks 3] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

#: The overhead the issue asks for at three 224x224 images [ms].
TARGET_MS = 1.0
CAMERAS = ("head", "left_wrist", "right_wrist")


class Hold:
    """Returns the state it is given (no cost of its own)."""

    cameras = CAMERAS

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return obs["state"]


def hold() -> Hold:
    """The factory ``tools/bench_child_policy.py:hold``."""
    return Hold()


def _times(policy: Any, obs: dict[str, Any], steps: int) -> list[float]:
    for _ in range(20):
        policy.act(obs)
    out = []
    for _ in range(steps):
        start = time.perf_counter()
        policy.act(obs)
        out.append(time.perf_counter() - start)
    return out


def _summary(times: list[float]) -> dict[str, float]:
    ms = sorted(1e3 * t for t in times)
    return {
        "median_ms": statistics.median(ms),
        "p90_ms": ms[int(0.9 * (len(ms) - 1))],
        "mean_ms": statistics.fmean(ms),
    }


def measure(steps: int, size: int, cameras: int, blocks: int) -> dict[str, Any]:
    """The figures of one run (see the module docstring)."""
    from gymnasium import spaces

    from rsb_mj.env.views import PolicyEnv
    from rsb_mj.policies.child import ChildPolicy
    from rsb_mj.policies.user import UserPolicy

    rng = np.random.default_rng(0)
    names = (CAMERAS * (cameras // len(CAMERAS) + 1))[:cameras]
    names = tuple(n if i < len(CAMERAS) else f"{n}_{i}" for i, n in enumerate(names))
    images = {n: rng.integers(0, 256, (size, size, 3), dtype=np.uint8) for n in names}
    obs = {"state": rng.uniform(-1, 1, 14), "images": images}
    box = spaces.Box(-np.pi, np.pi, shape=(14,), dtype=np.float64)
    view = PolicyEnv(box, None, ("a", "b"), 20.0, "bench")
    info = {"instruction": "bench", "candidates": ("a", "b"), "step": 0, "signals": {}}
    here = Path(__file__).resolve()
    child = ChildPolicy(f"{here}:hold")
    local = UserPolicy("hold", hold())
    try:
        child.reset(view, obs, info)
        np.testing.assert_array_equal(child.act(obs), obs["state"])
        runs = []
        for _ in range(blocks):
            runs.append((_summary(_times(child, obs, steps)), _summary(_times(local, obs, steps))))
    finally:
        child.close()
    best_child, best_local = min(runs, key=lambda r: r[0]["median_ms"])
    return {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "steps": steps,
        "blocks": blocks,
        "cameras": cameras,
        "size": size,
        "observation_bytes": int(sum(a.nbytes for a in images.values()) + obs["state"].nbytes),
        "policy_process": best_child,
        "in_process": best_local,
        "overhead_median_ms": best_child["median_ms"] - best_local["median_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when the median overhead at 3 x 224 x 224 meets the target
    (any other size: always 0, nothing to compare)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=500, help="act calls per block")
    parser.add_argument("--size", type=int, default=224, help="image side [px] (default 224)")
    parser.add_argument("--cameras", type=int, default=3, help="images per observation")
    parser.add_argument("--blocks", type=int, default=3, help="blocks; the fastest is kept")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if min(args.steps, args.size, args.cameras, args.blocks) < 1:
        parser.error("--steps, --size, --cameras and --blocks must be at least 1")
    result = measure(args.steps, args.size, args.cameras, args.blocks)
    child, local = result["policy_process"], result["in_process"]
    print(
        f"observation: {args.cameras} x {args.size}x{args.size} RGB + state "
        f"({result['observation_bytes']:,} bytes); {result['machine']}, "
        f"Python {result['python']}"
    )
    for label, r in (("policy process", child), ("in process", local)):
        print(
            f"{label:>14}: act {r['median_ms']:.3f} ms median, {r['p90_ms']:.3f} ms p90, "
            f"{r['mean_ms']:.3f} ms mean ({args.steps} calls, fastest of {args.blocks} blocks)"
        )
    overhead = result["overhead_median_ms"]
    standard = (args.size, args.cameras) == (224, 3)
    if standard:
        verdict = f"target < {TARGET_MS:g} ms: {'met' if overhead < TARGET_MS else 'missed'}"
    else:
        verdict = f"the < {TARGET_MS:g} ms target is set for 3 x 224x224"
    print(f"overhead per step: {overhead:.3f} ms median ({verdict})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 1 if standard and overhead >= TARGET_MS else 0


if __name__ == "__main__":
    sys.exit(main())
