"""Evaluate a policy inside a training loop with ``rsb_mj.evaluate``.

The trainer holds its policy as an object; every few steps it evaluates it on frozen eval
episodes, in its own process, and logs the numbers as one flat dict (what ``wandb.log``,
TensorBoard's ``add_scalars`` or any logger takes)::

    python examples/evaluate_in_training.py --steps 2 --episodes 2 --out runs/training

Each checkpoint gets its own run folder (``OUT/step_<N>``), so rerunning the script after an
interruption redoes no finished episode: ``evaluate`` resumes a folder. The records say
``inprocess:<name>`` and ``privileged: true`` (code in rsb's process could read the answer),
so ``rsb report OUT/step_<N>`` shows them marked.

With wandb, replace ``log`` by ``wandb.log(metrics, step=step)``; rsb_mj itself does not
depend on wandb.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import rsb_mj


class TrainedPolicy:
    """Stands in for a model being trained: holds the start pose, grippers open.

    ``act(obs)`` gets the observation (``obs["state"]``: 14 joint values; ``obs["images"]``:
    the cameras named in ``cameras``) and returns a (14,) joint-position action.
    """

    cameras = ()  # the cameras act reads: none here, so nothing is rendered

    def __init__(self, step: int) -> None:
        self.step = step  # a real trainer would hold its network's weights here

    def act(self, obs: dict) -> np.ndarray:
        action = np.array(obs["state"], dtype=np.float64)
        action[[6, 13]] = 1.0  # grippers open
        return action


def log(metrics: dict[str, float | int], step: int) -> None:
    """The trainer's logger (``wandb.log(metrics, step=step)`` with wandb)."""
    print(json.dumps({"step": step, **metrics}, sort_keys=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2, help="checkpoints to evaluate")
    parser.add_argument("--episodes", type=int, default=2, help="episodes per suite")
    parser.add_argument("--suite", action="append", help="suite (repeatable; RSB-Math-4)")
    parser.add_argument("--max-steps", type=int, default=40, help="control steps per episode")
    parser.add_argument("--out", type=Path, default=Path("runs/training"))
    args = parser.parse_args(argv)
    for step in range(1, args.steps + 1):
        policy = TrainedPolicy(step)  # ... a training step would go here ...
        results = rsb_mj.evaluate(
            policy,
            suites=args.suite or ["RSB-Math-4"],
            episodes=args.episodes,
            out=args.out / f"step_{step}",
            name="trained",
            max_steps=args.max_steps,
        )
        log(results.flat(prefix="rsb/"), step)
    return 0


if __name__ == "__main__":
    sys.exit(main())
