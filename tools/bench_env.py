"""Benchmark of the rsb environment against raw MuJoCo and robosuite, in one run.

Measures, on this machine, with identical control rate (20 Hz, 25 physics steps of 2 ms):

1. construction + first reset of ``RsbEnv`` (three 320x240 cameras) and of robosuite's
   ``TwoArmLift`` with ``robots="Aloha"`` (no cameras);
2. a control step without cameras vs 25 raw ``mujoco.mj_step`` calls on the same compiled
   model (target <= 1.3x; also shown: one ``mj_step(nstep=25)`` call) and vs the robosuite
   env's step (target >= 4x faster);
3. a step with the three cameras at 320x240 vs robosuite with three 320x240 cameras
   (frontview + both wrist cameras; target >= 10x faster).

Each figure is the fastest of 5 blocks (the machine is shared; the minimum is the least
disturbed estimate).

Usage: ``python tools/bench_env.py [--steps 200] [--camera-steps 20] [--json out.json]
[--no-robosuite]``.
Prints one line per figure and the ratios with their targets; records mujoco/robosuite
versions and the quality preset.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from importlib.metadata import version

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco
import numpy as np

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.rates import CONTROL_HZ, SUBSTEPS
from rsb_mj.suites import get_suite

TASK = "RSB-Math-4"


#: Measurements are split into this many blocks; each figure is the fastest block's mean
#: (the machine is shared, so the minimum is the least disturbed estimate).
BLOCKS = 5


def _timed(fn, n: int) -> float:
    """Mean seconds per call of ``fn``: the fastest of ``BLOCKS`` blocks of ``n // BLOCKS``
    calls (after one warm-up call)."""
    fn()
    per = max(1, n // BLOCKS)
    best = float("inf")
    for _ in range(BLOCKS):
        start = time.perf_counter()
        for _ in range(per):
            fn()
        best = min(best, (time.perf_counter() - start) / per)
    return best


def _wiggle(state: np.ndarray, rng: np.random.Generator):
    """A closure producing slowly moving joint targets around ``state``."""
    base = state.copy()
    t = [0]

    def action() -> np.ndarray:
        t[0] += 1
        a = base.copy()
        phase = 0.05 * t[0]
        a[[0, 7]] += 0.2 * np.sin(phase)
        a[[1, 8]] += 0.1 * np.sin(1.3 * phase)
        a[[6, 13]] = 0.5 + 0.5 * np.sin(0.7 * phase)
        return a

    return action


def bench_rsb(steps: int, camera_steps: int) -> dict[str, float]:
    """Figures of RsbEnv and raw MuJoCo."""
    path = get_suite(TASK).path
    out: dict[str, float] = {}
    start = time.perf_counter()
    env = RsbEnv(path, suite=TASK)
    obs, _ = env.reset(seed=0)
    out["rsb_construct_reset_s"] = time.perf_counter() - start
    action = _wiggle(obs["state"], np.random.default_rng(0))
    out["rsb_step_cameras_s"] = _timed(lambda: env.step(action()), camera_steps)
    env.close()

    blind = RsbEnv(path, suite=TASK, cameras=())
    obs, _ = blind.reset(seed=0)
    action = _wiggle(obs["state"], np.random.default_rng(0))
    # The same model, episode and control sequence, stepped by bare mj_step calls: the raw
    # runs follow exactly the env's trajectory (same physics, same inputs).
    model = blind.model
    raw, nstep = mujoco.MjData(model), mujoco.MjData(model)
    blind.scene.apply_episode(raw, blind.episode)
    blind.scene.apply_episode(nstep, blind.episode)
    per = max(1, steps // BLOCKS)
    best = {"rsb_step_s": np.inf, "raw_mj_step_x25_s": np.inf, "raw_mj_step_nstep25_s": np.inf}
    for _ in range(BLOCKS):
        actions = [action() for _ in range(per)]
        ctrls = []
        start = time.perf_counter()
        for a in actions:
            blind.step(a)
            ctrls.append(blind.data.ctrl.copy())
        best["rsb_step_s"] = min(best["rsb_step_s"], (time.perf_counter() - start) / per)
        start = time.perf_counter()
        for c in ctrls:
            raw.ctrl[:] = c
            for _ in range(SUBSTEPS):
                mujoco.mj_step(model, raw)
        best["raw_mj_step_x25_s"] = min(
            best["raw_mj_step_x25_s"], (time.perf_counter() - start) / per
        )
        start = time.perf_counter()
        for c in ctrls:
            nstep.ctrl[:] = c
            mujoco.mj_step(model, nstep, nstep=SUBSTEPS)
        best["raw_mj_step_nstep25_s"] = min(
            best["raw_mj_step_nstep25_s"], (time.perf_counter() - start) / per
        )
    out.update({k: float(v) for k, v in best.items()})
    blind.close()
    return out


def bench_robosuite(steps: int, camera_steps: int) -> dict[str, float]:
    """Figures of robosuite's TwoArmLift with the Aloha (the peer)."""
    logging.getLogger("robosuite_logs").setLevel(logging.ERROR)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        import robosuite
        import robosuite_models  # noqa: F401

    def make(cameras: bool):
        with redirect_stdout(io.StringIO()):
            return robosuite.make(
                "TwoArmLift",
                robots="Aloha",
                has_renderer=False,
                has_offscreen_renderer=cameras,
                use_camera_obs=cameras,
                camera_names=["frontview", "robot0_wrist_cam_left", "robot0_wrist_cam_right"],
                camera_heights=240,
                camera_widths=320,
                control_freq=20,
                ignore_done=True,
            )

    out: dict[str, float] = {}
    start = time.perf_counter()
    env = make(cameras=False)
    env.reset()
    out["robosuite_construct_reset_s"] = time.perf_counter() - start
    zero = np.zeros(env.action_dim)
    out["robosuite_step_s"] = _timed(lambda: env.step(zero), steps)
    env.close()
    env = make(cameras=True)
    env.reset()
    out["robosuite_step_cameras_s"] = _timed(lambda: env.step(zero), camera_steps)
    env.close()
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures; returns 0 when every target is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="control steps per figure")
    parser.add_argument("--camera-steps", type=int, default=20, help="steps with cameras")
    parser.add_argument("--json", type=str, default="", help="also write the figures here")
    parser.add_argument(
        "--no-robosuite",
        action="store_true",
        help="measure rsb and raw MuJoCo only (robosuite takes ~10 s to build its env)",
    )
    args = parser.parse_args(argv)

    figures = bench_rsb(args.steps, args.camera_steps)
    ratios = {
        "step_vs_raw_mj_step": figures["rsb_step_s"] / figures["raw_mj_step_x25_s"],
        "step_vs_raw_nstep": figures["rsb_step_s"] / figures["raw_mj_step_nstep25_s"],
    }
    if not args.no_robosuite:
        figures.update(bench_robosuite(max(20, args.steps // 4), max(5, args.camera_steps // 2)))
        ratios["speedup_vs_robosuite"] = figures["robosuite_step_s"] / figures["rsb_step_s"]
        ratios["camera_speedup_vs_robosuite"] = (
            figures["robosuite_step_cameras_s"] / figures["rsb_step_cameras_s"]
        )
    targets = {
        "step_vs_raw_mj_step": ("<=", 1.3),
        "speedup_vs_robosuite": (">=", 4.0),
        "camera_speedup_vs_robosuite": (">=", 10.0),
    }
    meta = {
        "mujoco": mujoco.__version__,
        "robosuite": None if args.no_robosuite else version("robosuite"),
        "quality": "fast",
        "task": TASK,
        "control_hz": CONTROL_HZ,
        "substeps": SUBSTEPS,
        "python": sys.version.split()[0],
    }
    print(f"versions: {meta}")
    for key, value in figures.items():
        print(f"{key:32s} {value * 1000:10.2f} ms")
    ok = True
    for key, value in ratios.items():
        line = f"{key:32s} {value:10.2f}x"
        if key in targets:
            op, bound = targets[key]
            met = value <= bound if op == "<=" else value >= bound
            ok &= met
            line += f"   target {op} {bound}x: {'met' if met else 'MISSED'}"
        print(line)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"figures": figures, "ratios": ratios, "meta": meta}, fh, indent=2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
