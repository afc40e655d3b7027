"""Cost of the perturbations: reset and step time at V4/W4 relative to V0/W0.

Three cameras at 320x240, RSB-Math-4, the same seeds at both levels; prints the ratios
(timings on a shared machine are noisy, ratios less so).

Usage::

    python tools/bench_perturb.py [--steps 40] [--episodes 3]
"""

from __future__ import annotations

import argparse
import time

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.suites import get_suite


def measure(level: int, episodes: int, steps: int) -> tuple[float, float]:
    """(mean reset time [s], mean step time [s]) at visual and language level ``level``."""
    suite = get_suite("RSB-Math-4")
    env = RsbEnv(suite.path, suite=suite.name, visual_level=level, language_level=level)
    resets, stepping = 0.0, 0.0
    try:
        for seed in range(episodes):
            t0 = time.perf_counter()
            obs, _ = env.reset(seed=seed)
            t1 = time.perf_counter()
            for _ in range(steps):
                env.step(obs["state"])
            resets += t1 - t0
            stepping += time.perf_counter() - t1
    finally:
        env.close()
    return resets / episodes, stepping / (episodes * steps)


def main(argv: list[str] | None = None) -> None:
    """Print V0 and V4 times and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args(argv)
    r0, s0 = measure(0, args.episodes, args.steps)
    r4, s4 = measure(4, args.episodes, args.steps)
    print(f"V0/W0: reset {r0 * 1e3:.1f} ms, step {s0 * 1e3:.1f} ms")
    print(f"V4/W4: reset {r4 * 1e3:.1f} ms, step {s4 * 1e3:.1f} ms")
    print(f"ratio V4/V0: reset {r4 / r0:.2f}x, step {s4 / s0:.2f}x")


if __name__ == "__main__":
    main()
